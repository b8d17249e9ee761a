import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { ServicesModule } from './services/index.js';

/** Root module of the operations console: the MCP server at `/mcp` plus the services feature. */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      title: 'Operations console',
      instructions:
        'Operations console for the service fleet. Start with list_services or the ops://services resource, and ' +
        'read ops://runbook before changing anything. scale_service and restart_service change production: ' +
        'restart_service is destructive, so confirm it with the user first. Use the incident_summary prompt to ' +
        'draft incident reports.',
    }),
    ServicesModule,
  ],
})
export class AppModule {}
