import { Injectable } from '@nestjs/common';
import type { McpTaskExecutor, McpTaskRunner } from 'nest-mcp';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/** STUB (helper H2 implements): task rounds on a BullMQ queue. */
@Injectable()
export class BullMqTaskRunner implements McpTaskRunner {
  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  attach(_executor: McpTaskExecutor): void {
    throw new Error('not implemented');
  }
  async enqueue(_taskId: string): Promise<void> {
    throw new Error('not implemented');
  }
  async cancel(_taskId: string): Promise<void> {
    throw new Error('not implemented');
  }
  async close(): Promise<void> {}
}
