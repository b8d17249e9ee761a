import { Module } from '@nestjs/common';
import { ServiceCatalog } from './service-catalog.service.js';
import { ServicesPrompts } from './services.prompts.js';
import { ServicesResources } from './services.resources.js';
import { ServicesTools } from './services.tools.js';

/**
 * The operations-console feature: the service catalog and its MCP tools, prompts and resources.
 * `McpModule` discovers the decorated methods wherever they are, so this module needs no MCP import.
 */
@Module({
  providers: [ServiceCatalog, ServicesTools, ServicesPrompts, ServicesResources],
  exports: [ServiceCatalog],
})
export class ServicesModule {}
