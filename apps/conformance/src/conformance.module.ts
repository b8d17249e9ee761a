import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { ConformancePrompts } from './conformance.prompts.js';
import { ConformanceResources } from './conformance.resources.js';
import { ContentTools } from './content.tools.js';
import { CONFORMANCE_SKILLS, ConformanceSkills } from './conformance.skills.js';
import { InputTools } from './input.tools.js';
import { SchemaTools } from './schema.tools.js';
import { TaskTools } from './task.tools.js';

/** The server the official MCP conformance suite runs against. */
@Module({
  imports: [McpModule.forRoot({ name: 'nest-mcp-conformance', version: '1.0.0', skills: CONFORMANCE_SKILLS })],
  providers: [
    ContentTools,
    InputTools,
    SchemaTools,
    ConformancePrompts,
    ConformanceResources,
    TaskTools,
    ConformanceSkills,
  ],
})
export class ConformanceModule {}
