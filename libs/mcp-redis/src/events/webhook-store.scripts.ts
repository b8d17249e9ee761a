import { RedisScript } from '../task-store.scripts.js';

/** Drops the expired members (score ≤ ARGV[1], ms since the epoch) of the index at `KEYS[k]`. */
const pruneIndex = (k: number) => `
redis.call('ZREMRANGEBYSCORE', KEYS[${k}], '-inf', ARGV[1])
`;

/**
 * Creates or replaces a subscription, atomically: a new incarnation of the key forgets the old one's in-flight
 * bookkeeping; the same incarnation (a refresh) keeps its delivery state. KEYS: record hash, pending set, by-name index, by-principal index. ARGV: now, record JSON, incarnation,
 * delivery JSON, key, expiresAt (ms, or `+inf`).
 * @internal
 */
export const PUT_SUBSCRIPTION = new RedisScript(`
local previous = redis.call('HGET', KEYS[1], 'incarnation')
if previous ~= ARGV[3] then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('HSET', KEYS[1], 'record', ARGV[2], 'incarnation', ARGV[3], 'delivery', ARGV[4])
else
  redis.call('HSET', KEYS[1], 'record', ARGV[2])
end
if ARGV[6] == '+inf' then
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
else
  redis.call('PEXPIREAT', KEYS[1], ARGV[6])
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIREAT', KEYS[2], ARGV[6]) end
end
${pruneIndex(3)}
${pruneIndex(4)}
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[6], ARGV[5])
return 1
`);

/**
 * Removes a subscription, its in-flight bookkeeping and its index entries. KEYS: record hash, pending set, by-name
 * index, by-principal index. ARGV: key. Returns 1 when it existed.
 * @internal
 */
export const DELETE_SUBSCRIPTION = new RedisScript(`
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return existed
`);

/**
 * Records a delivery's outcome, if the subscription is still the incarnation the delivery was for. KEYS: record
 * hash. ARGV: incarnation, delivery JSON.
 * @internal
 */
export const RECORD_DELIVERY = new RedisScript(`
if redis.call('HGET', KEYS[1], 'incarnation') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'delivery', ARGV[2])
return 1
`);

/**
 * Notes an event in flight, for a subscription that still exists; the set lives as long as the subscription.
 * KEYS: record hash, pending set. ARGV: position.
 * @internal
 */
export const TRACK_PENDING = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], 0, ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`);

/**
 * Counts an index's live members after dropping the expired ones. KEYS: index. ARGV: now.
 * @internal
 */
export const COUNT_LIVE = new RedisScript(`
${pruneIndex(1)}
return redis.call('ZCARD', KEYS[1])
`);
