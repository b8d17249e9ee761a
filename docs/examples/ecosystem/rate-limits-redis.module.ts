import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { McpModule, mcpThrottlerOptions } from 'nest-mcp';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';
import { SearchTools } from './rate-limits.module.js';

/** Where the replicas' shared state lives, and the keys they all seal `requestState` with. */
export interface ReplicaSettings {
  redisUrl: string;
  stateKeys: string[];
  /** Calls per caller and tool in each minute, across every replica. */
  limit: number;
}

/** One replica of a rate-limited server: the counts live in Redis, so the limit holds whichever replica is called. */
export function replicatedRateLimitsModule({ redisUrl, stateKeys, limit }: ReplicaSettings) {
  // #region docs:rate-limits-redis
  @Module({
    imports: [
      McpRedisModule.forRoot({ url: redisUrl }),
      ThrottlerModule.forRootAsync({
        inject: [McpRedis],
        useFactory: (redis: McpRedis) => ({
          throttlers: [{ name: 'default', limit, ttl: 60_000 }],
          storage: redis.throttlerStorage,
          ...mcpThrottlerOptions,
        }),
      }),
      McpModule.forRootAsync({
        inject: [McpRedis],
        useFactory: (redis: McpRedis) =>
          redis.serverOptions({
            name: 'catalog',
            version: '1.0.0',
            requestState: { keys: stateKeys },
            principal: (request) => (request as { headers: Record<string, string | undefined> }).headers['x-user'],
          }),
      }),
    ],
    providers: [SearchTools, { provide: APP_GUARD, useClass: ThrottlerGuard }],
  })
  class ReplicaModule {}
  // #endregion docs:rate-limits-redis
  return ReplicaModule;
}
