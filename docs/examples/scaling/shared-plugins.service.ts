import { Injectable, type OnModuleInit } from '@nestjs/common';
import { McpRegistry } from 'nest-mcp';

// #region docs:shared-plugins
@Injectable()
export class SharedPlugins implements OnModuleInit {
  constructor(private readonly registry: McpRegistry) {}

  /** On every replica, at startup: the handlers runtime registrations may name. */
  onModuleInit(): void {
    this.registry.provideHandler<{ text?: string }>('echo', ({ text }) => text ?? '');
  }

  /** On any one replica, at run time: every replica lists `echo` once this resolves. */
  async enable(): Promise<void> {
    await this.registry.registerTool(
      {
        name: 'echo',
        description: 'Echoes its text',
        input: { type: 'object', properties: { text: { type: 'string' } } },
      },
      'echo',
    );
  }

  /** Removed on every replica once `settled()` resolves; a declared tool is switched off the same way. */
  async disable(): Promise<void> {
    this.registry.removeTool('echo');
    this.registry.disableTool('restart_service');
    await this.registry.settled();
  }
}
// #endregion docs:shared-plugins
