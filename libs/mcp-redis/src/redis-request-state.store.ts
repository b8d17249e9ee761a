import { Injectable } from '@nestjs/common';
import type { McpRequestStateStore } from 'nest-mcp';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/** STUB (helper H1 implements): single-use requestState ids in Redis. */
@Injectable()
export class RedisRequestStateStore implements McpRequestStateStore {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;

  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  async consume(_stateId: string, _expiresAt: number, _caller?: string): Promise<boolean> {
    throw new Error('not implemented');
  }
}
