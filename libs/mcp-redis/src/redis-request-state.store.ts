import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { McpError, McpErrorCode } from 'nest-mcp';
import type { McpRequestStateStore } from 'nest-mcp/backend';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/** Longest state id accepted (nest-mcp's ids are 28 characters). */
export const MAX_STATE_ID_LENGTH = 256;
/**
 * How long a used id is kept after its state expired, in milliseconds: nest-mcp accepts a state whose issue time is
 * up to a minute ahead of its own clock, so the replicas' clocks and Redis's may disagree by that much without
 * letting a state be used twice.
 */
const CLOCK_SKEW_MARGIN_MS = 60_000;
/** Seconds a caller is told to wait when Redis cannot be reached. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/**
 * Records a used state in one step: KEYS[1] the state's key, KEYS[2] the caller's live states (a sorted set scored by
 * expiry); ARGV: expiresAt, now, the per-caller bound, the state id, when the key may go (epoch ms).
 * Answers 0 when the state was used, {-1, the oldest live expiry} when the caller holds its bound, 1 when recorded.
 */
const CONSUME_WITH_BOUND = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {-1, oldest[2]}
end
redis.call('SET', KEYS[1], '1', 'PXAT', ARGV[5], 'NX')
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[4])
local latest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], latest[2])
return 1
`;

/** The client with the script defined on it. */
type ScriptedRedis = Redis & {
  nestMcpConsumeRequestState(
    stateKey: string,
    callerKey: string,
    expiresAt: number,
    now: number,
    maxPerCaller: number,
    stateId: string,
    keepUntil: number,
  ): Promise<number | [number, string]>;
};

/**
 * The single-use `requestState` store shared by every replica (`requestState.singleUse`): each state is accepted
 * once, whichever replica its retries reach.
 *
 * - At most once: a state is recorded with `SET … NX PXAT` (atomic in Redis), kept until it expires (plus a minute for
 *   clock skew between replicas and Redis, which should still be kept in sync with NTP).
 * - Bounded per caller: one caller holds at most `requestState.maxStatesPerCaller` live states (module option,
 *   default 10,000); more are refused with HTTP 429 and `data.retryAfterSeconds` (when its oldest state expires).
 *   The count and the record are one Lua script, so concurrent retries cannot overshoot.
 * - Fails closed: when Redis cannot be reached (or answers with an error) the retry is refused with `-32603` and HTTP
 *   503 "requestState store unavailable", never accepted unrecorded. A state whose `expiresAt` has passed is refused
 *   as expired (`-32602`): it would not be accepted anyway, and recording it would be meaningless.
 *
 * Keys: `<keyPrefix>:rs:<stateId>` and `<keyPrefix>:rs-caller:<hash of the caller>` (one Redis, not Redis Cluster).
 */
@Injectable()
export class RedisRequestStateStore implements McpRequestStateStore {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;

  private readonly logger = new Logger('McpRedisRequestState');
  private readonly redis: ScriptedRedis;
  private failing = false;

  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {
    this.redis = connection.scripted<ScriptedRedis>('nestMcpConsumeRequestState', 2, CONSUME_WITH_BOUND);
  }

  async consume(stateId: string, expiresAt: number, caller?: string): Promise<boolean> {
    if (typeof stateId !== 'string' || stateId.length === 0 || stateId.length > MAX_STATE_ID_LENGTH) {
      throw McpError.invalidParams(
        `Invalid requestState: its id must be a string of 1 to ${MAX_STATE_ID_LENGTH} characters`,
      );
    }
    if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) {
      throw McpError.invalidParams('Invalid requestState: its expiry must be a finite number of epoch milliseconds');
    }
    if (caller !== undefined && typeof caller !== 'string') {
      throw new TypeError('RedisRequestStateStore: caller must be a string when given');
    }
    const now = Date.now();
    const expiry = Math.ceil(expiresAt);
    if (expiry <= now) throw McpError.invalidParams('Invalid requestState: expired');
    const stateKey = this.options.key('rs', stateId);
    const keepUntil = expiry + CLOCK_SKEW_MARGIN_MS;
    let answer: number | [number, string] | string | null;
    try {
      answer =
        caller === undefined
          ? await this.redis.set(stateKey, '1', 'PXAT', keepUntil, 'NX')
          : await this.redis.nestMcpConsumeRequestState(
              stateKey,
              this.options.key('rs-caller', createHash('sha256').update(caller).digest('base64url')),
              expiry,
              now,
              this.options.requestState.maxStatesPerCaller,
              stateId,
              keepUntil,
            );
    } catch (error) {
      throw this.unavailable(error);
    }
    this.recovered();
    if (answer === 'OK' || answer === 1) return true;
    if (answer === null || answer === 0) return false;
    if (Array.isArray(answer) && answer[0] === -1) throw this.callerFull(Number(answer[1]), now);
    throw this.unavailable(new Error(`unexpected answer ${JSON.stringify(answer)}`));
  }

  private callerFull(oldestExpiresAt: number, now: number): McpError {
    const retryAfterSeconds = Math.max(
      1,
      Math.ceil(((Number.isFinite(oldestExpiresAt) ? oldestExpiresAt : now) - now) / 1000),
    );
    const limit = this.options.requestState.maxStatesPerCaller;
    return new McpError(
      McpErrorCode.InternalError,
      `Too many multi-round calls in progress for this caller: it holds ${limit} single-use requestStates ` +
        '(McpRedisModule requestState.maxStatesPerCaller); retry later',
      { retryAfterSeconds },
      429,
    );
  }

  /** Redis did not record the state: the retry is refused (503), and the outage is logged once. */
  private unavailable(error: unknown): McpError {
    if (!this.failing) {
      this.failing = true;
      this.logger.warn(
        `Redis did not record a used requestState, so retries are refused: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    return new McpError(
      McpErrorCode.InternalError,
      'requestState store unavailable: the single-use record of this state could not be written; retry later',
      { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS },
      503,
    );
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.log('Redis records used requestStates again');
  }
}
