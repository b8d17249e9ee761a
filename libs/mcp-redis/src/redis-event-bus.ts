import { Injectable } from '@nestjs/common';
import type { McpChangeEvent, McpEventBus } from 'nest-mcp';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/** STUB (helper H1 implements): change events over Redis pub/sub. */
@Injectable()
export class RedisEventBus implements McpEventBus {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;

  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  publish(_event: McpChangeEvent): void {
    throw new Error('not implemented');
  }

  subscribe(_listener: (event: McpChangeEvent) => void): () => void {
    throw new Error('not implemented');
  }
}
