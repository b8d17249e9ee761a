import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run with `EVALSHA`, sent again with `EVAL` when Redis does not know it (first use, or after a restart
 * emptied its script cache).
 * @internal
 */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}

/**
 * Drops the expired ids (score ≤ now) of an owner's two indexes, in batches (Lua's `unpack` has a stack limit).
 * KEYS[2]: the owner's ids by expiry; KEYS[3]: the owner's ids by creation order.
 */
const PRUNE_OWNER = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for i = 1, #expired, 500 do
  local batch = {unpack(expired, i, math.min(i + 499, #expired))}
  redis.call('ZREM', KEYS[2], unpack(batch))
  redis.call('ZREM', KEYS[3], unpack(batch))
end
`;

/**
 * Creates a task, atomically: drops expired entries of the indexes, refuses when the owner or the store is full or
 * the id exists, then writes the record (expiring with the task) and indexes it, and publishes it.
 *
 * KEYS: 1 record, 2 owner's ids by expiry, 3 owner's ids by creation, 4 every id by expiry, 5 creation counter.
 * ARGV: 1 now (ms), 2 record JSON, 3 task id, 4 expiry (ms, or `+inf`), 5 max per owner, 6 max in total,
 * 7 channel of changes.
 * Returns `ok`, `owner` (owner full), `total` (store full) or `exists`.
 */
export const CREATE_TASK = new RedisScript(`
${PRUNE_OWNER}
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 'owner' end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then return 'total' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
if ARGV[4] == '+inf' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[4])
end
local seq = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[3], seq, ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
-- An owner's indexes live as long as its longest-lived task.
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
for _, key in ipairs({KEYS[2], KEYS[3]}) do
  if last[2] == 'inf' then redis.call('PERSIST', key) else redis.call('PEXPIREAT', key, last[2]) end
end
redis.call('PUBLISH', ARGV[7], ARGV[2])
return 'ok'
`);

/**
 * Compare-and-set of a task: writes the new record (keeping its expiry) only if the stored one still has the version
 * the change was computed from and is not terminal, and publishes it.
 *
 * KEYS: 1 record. ARGV: 1 expected version, 2 new record JSON, 3 channel of changes.
 * Returns `ok`, `gone` (unknown or expired) or `conflict` (changed meanwhile, or terminal).
 */
export const UPDATE_TASK = new RedisScript(`
local raw = redis.call('GET', KEYS[1])
if not raw then return 'gone' end
local current = cjson.decode(raw)
if tostring(current.version) ~= ARGV[1] then return 'conflict' end
local status = current.status
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 'conflict' end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 'ok'
`);

/**
 * Drops the expired ids of an owner's indexes (before a listing).
 * KEYS: 1 unused, 2 owner's ids by expiry, 3 owner's ids by creation. ARGV: 1 now (ms).
 */
export const PRUNE_OWNER_TASKS = new RedisScript(`${PRUNE_OWNER}\nreturn 'ok'`);
