import { Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/**
 * Counts one hit in one step: KEYS[1] the hits of the window, KEYS[2] the block; ARGV: ttl, limit, block duration (ms).
 * While blocked nothing is counted. The hit over the limit starts the block and clears the window, so counting starts
 * afresh when the block ends. Answers {hits, ms until the window ends, blocked (0/1), ms until the block ends}.
 */
const INCREMENT = `
local blocked = redis.call('PTTL', KEYS[2])
if blocked > 0 then
  return {tonumber(ARGV[2]) + 1, blocked, 1, blocked}
end
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local window = redis.call('PTTL', KEYS[1])
if window < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  window = tonumber(ARGV[1])
end
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  redis.call('DEL', KEYS[1])
  return {hits, window, 1, tonumber(ARGV[3])}
end
return {hits, window, 0, 0}
`;

/** What `@nestjs/throttler` reads back from a storage (its `ThrottlerStorageRecord`), for one hit. */
export interface RedisThrottlerRecord {
  /** Hits in the current window, this one included. */
  totalHits: number;
  /** Seconds until the window ends. */
  timeToExpire: number;
  /** Whether the key is blocked: the call is refused. */
  isBlocked: boolean;
  /** Seconds until the block ends (0 when not blocked): the `Retry-After` the guard sends. */
  timeToBlockExpire: number;
}

type ScriptedRedis = Redis & {
  nestMcpThrottle(
    hitsKey: string,
    blockKey: string,
    ttl: number,
    limit: number,
    blockDuration: number,
  ): Promise<[number, number, number, number]>;
};

/**
 * A `@nestjs/throttler` storage on Redis, shared by every replica: a limit holds for a caller whichever replica its
 * calls reach (`McpRedis.throttlerStorage`). It has the shape of the throttler's `ThrottlerStorage` without depending
 * on the package. No storage for Nest 12 was kept up on npm when this was written (issue #30).
 *
 * - One Lua script per hit (count, window, block), so concurrent calls on several replicas never overshoot the limit.
 * - Fixed windows of `ttl` from a key's first hit; the hit over the limit blocks the key for `blockDuration` (the
 *   throttler's default: `ttl`), during which nothing is counted; counting starts afresh after the block.
 * - Keys are `<keyPrefix>:throttle:{<throttler>:<key>}` (hash-tagged: both keys of a hit live on one Cluster slot)
 *   and expire with their window or block.
 * - Fails closed: when Redis cannot be reached the call is refused with 503 (an MCP call: `-32603`, HTTP 503,
 *   `data.retryAfterSeconds`), and the outage is logged once.
 *
 * @example
 * ```ts
 * ThrottlerModule.forRootAsync({
 *   inject: [McpRedis],
 *   useFactory: (redis: McpRedis) => ({ throttlers: [{ limit: 100, ttl: 60_000 }], storage: redis.throttlerStorage, ...mcpThrottlerOptions }),
 * })
 * ```
 */
@Injectable()
export class RedisThrottlerStorage {
  private readonly logger = new Logger('McpRedisThrottler');
  private readonly redis: ScriptedRedis;
  private failing = false;

  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {
    this.redis = connection.scripted<ScriptedRedis>('nestMcpThrottle', 2, INCREMENT);
  }

  /** Counts one hit of `key` for the throttler `throttlerName` (the throttler's `ThrottlerStorage.increment`). */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<RedisThrottlerRecord> {
    const slot = `{${throttlerName}:${key}}`;
    let answer: [number, number, number, number];
    try {
      answer = await this.redis.nestMcpThrottle(
        this.options.key('throttle', slot),
        this.options.key('throttle', slot, 'block'),
        Math.max(1, Math.ceil(ttl)),
        limit,
        Math.max(1, Math.ceil(blockDuration)),
      );
    } catch (error) {
      if (!this.failing)
        this.logger.error(
          `Rate limits cannot be counted, calls are refused until Redis is back: ${(error as Error).message}`,
        );
      this.failing = true;
      throw new ServiceUnavailableException('Rate limits cannot be counted right now; retry later');
    }
    if (this.failing) this.logger.log('Rate limits are counted again');
    this.failing = false;
    const [totalHits, windowMs, blocked, blockMs] = answer.map(Number);
    return {
      totalHits,
      timeToExpire: Math.ceil(windowMs / 1000),
      isBlocked: blocked === 1,
      timeToBlockExpire: Math.ceil(blockMs / 1000),
    };
  }
}
