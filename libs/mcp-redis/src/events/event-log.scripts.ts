import { RedisScript } from '../task-store.scripts.js';

/**
 * The epoch of a type's log: random per creation of the log (HSETNX into the epochs hash), so that a position from a
 * log that is gone (a flushed Redis, another server on the same prefix) is recognised as foreign rather than read as
 * one of the new log's positions (what an older log trimmed is forgotten). KEYS[2]: the epochs hash; KEYS[3]: the
 * trimmed hash; ARGV[1]: the type; ARGV[2]: the epoch to use if none.
 */
const EPOCH = `
local epoch = redis.call('HGET', KEYS[2], ARGV[1])
if not epoch then
  epoch = ARGV[2]
  redis.call('HSET', KEYS[2], ARGV[1], epoch)
  redis.call('HDEL', KEYS[3], ARGV[1])
end
`;

/** Redis's own clock in ms, so that a window is judged on the clock the stream ids carry. */
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * Compares two stream ids in Lua (`true` when `a` comes after `b`), and remembers per type the largest id trimmed
 * (`KEYS[3]`, a hash): Redis's own `max-deleted-entry-id` counts XDEL only, not trimming, and a read needs to know
 * whether anything after its position is gone.
 */
const TRIMMED = `
local function after(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
local function trimmed(id)
  local known = redis.call('HGET', KEYS[3], ARGV[1])
  if not known or after(id, known) then redis.call('HSET', KEYS[3], ARGV[1], id) end
end
local function trim(maxEvents, windowMs)
  if maxEvents then
    local excess = redis.call('XLEN', KEYS[1]) - maxEvents
    if excess > 0 then
      local gone = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', excess)
      trimmed(gone[#gone][1])
      redis.call('XTRIM', KEYS[1], 'MAXLEN', maxEvents)
    end
  end
  if windowMs > 0 then
    ${NOW}
    local minId = string.format('%.0f', math.max(0, now - windowMs))
    local gone = redis.call('XREVRANGE', KEYS[1], '(' .. minId, '-', 'COUNT', 1)
    if #gone > 0 then
      trimmed(gone[1][1])
      redis.call('XTRIM', KEYS[1], 'MINID', minId)
    end
  end
end
`;

/**
 * Appends an occurrence to its type's stream, trims it to the retention (count exactly, then age by the ids' time,
 * which is Redis's clock), and publishes the entry on the live channel in the same step, so that the channel's order
 * is the log's order. KEYS: the stream, the epochs hash, the trimmed hash. ARGV: type, epoch candidate, event JSON,
 * maxEvents, windowMs, channel. Returns `{epoch, id}`.
 * @internal
 */
export const APPEND_EVENT = new RedisScript(`
${EPOCH}
${TRIMMED}
local id = redis.call('XADD', KEYS[1], '*', 'e', ARGV[3])
trim(tonumber(ARGV[4]), tonumber(ARGV[5]))
redis.call('PUBLISH', ARGV[6], epoch .. ' ' .. id .. ' ' .. ARGV[3])
return {epoch, id}
`);

/**
 * The head of a type's log: its epoch (created if the log has none yet) and its last generated id.
 * KEYS: the stream, the epochs hash, the trimmed hash. ARGV: type, epoch candidate. Returns `{epoch, lastId}`.
 * @internal
 */
export const LOG_HEAD = new RedisScript(`
${EPOCH}
if redis.call('EXISTS', KEYS[1]) == 0 then return {epoch, '0-0'} end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then return {epoch, info[i + 1]} end
end
return {epoch, '0-0'}
`);

/**
 * One read of a type's log: trims what the window no longer keeps, then answers the epoch, the last generated id,
 * the largest id trimmed (what is at or below it may be gone) and up to ARGV[5] entries from ARGV[3] (a Redis range
 * bound: `(id` after, `id` from, `-` the oldest). KEYS: the stream, the epochs hash, the trimmed hash. ARGV: type,
 * epoch candidate, start, windowMs (0: no trim), count. Returns `{epoch, lastId, trimmedId, entries}`.
 * @internal
 */
export const READ_LOG = new RedisScript(`
${EPOCH}
${TRIMMED}
if redis.call('EXISTS', KEYS[1]) == 0 then return {epoch, '0-0', redis.call('HGET', KEYS[3], ARGV[1]) or '0-0', {}} end
trim(nil, tonumber(ARGV[4]))
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last = '0-0'
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then last = info[i + 1] end
end
return {epoch, last, redis.call('HGET', KEYS[3], ARGV[1]) or '0-0', redis.call('XRANGE', KEYS[1], ARGV[3], '+', 'COUNT', ARGV[5])}
`);
