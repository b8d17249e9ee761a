import { Injectable } from '@nestjs/common';
import { McpPublisher, McpResource } from 'nest-mcp';

// #region docs:config-store
@Injectable()
export class ConfigStore {
  private config: Record<string, unknown> = {};

  constructor(private readonly publisher: McpPublisher) {}

  @McpResource({ uri: 'config://app', mimeType: 'application/json' })
  read(): string {
    return JSON.stringify(this.config);
  }

  async save(config: Record<string, unknown>): Promise<void> {
    this.config = config;
    // Streams subscribed to config://app (or to a parent URI) are told.
    await this.publisher.resourceUpdated('config://app');
  }
}
// #endregion docs:config-store
