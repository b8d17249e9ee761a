import { Injectable } from '@nestjs/common';
import { McpRegistry } from 'nest-mcp';

// #region docs:plugin-loader
@Injectable()
export class PluginLoader {
  constructor(private readonly registry: McpRegistry) {}

  enable(): void {
    this.registry.registerTool({ name: 'ping', description: 'Answers pong' }, () => 'pong');
  }

  disable(): void {
    this.registry.removeTool('ping');
  }
}
// #endregion docs:plugin-loader
