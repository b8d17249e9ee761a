import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpModuleExtras, McpModuleOptions } from './mcp-options.interface.js';

export const {
  ConfigurableModuleClass: McpConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setExtras<McpModuleExtras>({ path: '/mcp', isGlobal: true, include: undefined }, (definition) => definition)
  .setClassMethodName('forRoot')
  .build();
