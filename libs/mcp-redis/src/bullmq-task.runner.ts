import { Injectable } from '@nestjs/common';
import type { McpTaskExecutor, McpTaskRunner } from 'nest-mcp';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/** STUB (helper H2 implements): task rounds on a BullMQ queue. */
@Injectable()
export class BullMqTaskRunner implements McpTaskRunner {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;

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

  /** For the health indicator: whether this replica's worker runs, and the queue's job counts. */
  async status(): Promise<McpTaskQueueStatus> {
    throw new Error('not implemented');
  }
}

/** The state of the task queue, as the health indicator reports it. */
export interface McpTaskQueueStatus {
  /** This replica's BullMQ worker: taking rounds, closed (shutdown), or not connected to Redis. */
  readonly worker: 'running' | 'closed' | 'disconnected';
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
}
