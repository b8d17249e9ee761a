import { Injectable } from '@nestjs/common';
import type { McpTaskRecord, McpTaskStore } from 'nest-mcp';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/** STUB (helper H2 implements): tasks in Redis. */
@Injectable()
export class RedisTaskStore implements McpTaskStore {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;

  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  async create(_record: McpTaskRecord): Promise<void> {
    throw new Error('not implemented');
  }
  async get(_taskId: string, _owner: string | null): Promise<McpTaskRecord | undefined> {
    throw new Error('not implemented');
  }
  async load(_taskId: string): Promise<McpTaskRecord | undefined> {
    throw new Error('not implemented');
  }
  async update(_taskId: string, _mutate: (current: McpTaskRecord) => McpTaskRecord | undefined): Promise<McpTaskRecord | undefined> {
    throw new Error('not implemented');
  }
  async list(_owner: string | null, _page: { cursor?: string; limit: number }): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
    throw new Error('not implemented');
  }
  watch(_listener: (record: McpTaskRecord) => void): () => void {
    throw new Error('not implemented');
  }
}
