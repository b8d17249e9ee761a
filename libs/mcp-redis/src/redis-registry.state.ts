import { Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { McpRegistryRecord, McpRegistrySnapshot, McpRegistryState } from 'nest-mcp/backend';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { McpRedisResolvedOptions } from './mcp-redis-resolved-options.js';

/** Longest record accepted from Redis (options of one runtime entry, as JSON); a longer one is ignored. */
const MAX_RECORD_BYTES = 256 * 1024;

/**
 * Sets or clears one record and moves the token on, in one step: KEYS[1] the records (a hash), KEYS[2] the token
 * (`<epoch>:<revision>`, the epoch taken from Redis's clock when the token is missing: a fresh or wiped Redis);
 * ARGV[1] the entry key, ARGV[2] the record's JSON ('' clears it). Answers the new token.
 */
const COMMIT = `
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
local token = redis.call('GET', KEYS[2])
local epoch, revision
if token then epoch, revision = string.match(token, '^(.+):(%d+)$') end
if not epoch then
  local now = redis.call('TIME')
  epoch = now[1] .. '.' .. now[2]
  revision = 0
end
token = epoch .. ':' .. (tonumber(revision) + 1)
redis.call('SET', KEYS[2], token)
return token
`;

/** The token and every record at once: KEYS[1] the records, KEYS[2] the token. */
const READ = `return { redis.call('GET', KEYS[2]) or '', redis.call('HGETALL', KEYS[1]) }`;

type ScriptedRedis = Redis & {
  nestMcpRegistryCommit(records: string, token: string, key: string, record: string): Promise<string>;
  nestMcpRegistryRead(records: string, token: string): Promise<[string, string[]]>;
};

/**
 * The runtime state of the server's lists for every replica (`McpModule`'s `registryState`, ADR 0027): one hash
 * `<keyPrefix>:registry` of records (entry key → JSON) and a token `<keyPrefix>:registry:token` that every commit
 * moves on, both in one Lua script; each commit is announced on the channel `<keyPrefix>:registry`, and a replica
 * whose subscriber reconnected is told to catch up (it may have missed announcements). Records are read back as any
 * input: one that is not a well-formed record is ignored, with an error in the log.
 *
 * With AOF on, the state survives a Redis restart; without persistence a restart empties it, the token changes, and
 * every replica drops its runtime entries alike (they still agree).
 */
@Injectable()
export class RedisRegistryState implements McpRegistryState {
  private readonly logger = new Logger('McpRedisRegistryState');
  private recordsKey: string;
  private tokenKey: string;
  private channel: string;
  private readonly redis: ScriptedRedis;
  private readonly listeners = new Set<() => void>();
  private remote?: { stop: Promise<(() => void) | undefined>; stopResync: () => void };
  private readonly scopes = new Map<string, RedisRegistryState>();

  /** @internal Created by Nest's injector (`McpRedisModule`); a named server's through {@link forServer}. */
  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {
    this.recordsKey = options.key('registry');
    this.tokenKey = options.key('registry', 'token');
    this.channel = options.key('registry');
    connection.scripted('nestMcpRegistryCommit', 2, COMMIT);
    this.redis = connection.scripted<ScriptedRedis>('nestMcpRegistryRead', 2, READ);
  }

  /**
   * The registry state of the named server `name`: its own hash `<keyPrefix>:registry:server:<name>`, token and
   * channel, so two servers of one application keep their runtime entries apart. `McpRedis.serverOptions` uses it for
   * a server with `include`; the instance itself is the state of a server without one (today's keys). One instance
   * per name.
   */
  forServer(name: string): RedisRegistryState {
    let scoped = this.scopes.get(name);
    if (!scoped) {
      scoped = new RedisRegistryState(this.connection, this.options);
      scoped.recordsKey = this.options.key('registry', 'server', name);
      scoped.tokenKey = this.options.key('registry', 'server', name, 'token');
      scoped.channel = this.options.key('registry', 'server', name);
      this.scopes.set(name, scoped);
    }
    return scoped;
  }

  async commit(key: string, record: McpRegistryRecord | undefined): Promise<void> {
    const token = await this.redis.nestMcpRegistryCommit(
      this.recordsKey,
      this.tokenKey,
      key,
      record === undefined ? '' : JSON.stringify(record),
    );
    // Announced after the commit, on the same connection: a replica that hears of it reads a state that has it.
    await this.redis.publish(this.channel, token);
  }

  async token(): Promise<string> {
    return (await this.redis.get(this.tokenKey)) ?? '';
  }

  async read(): Promise<McpRegistrySnapshot> {
    const [token, flat] = await this.redis.nestMcpRegistryRead(this.recordsKey, this.tokenKey);
    const records: Record<string, McpRegistryRecord> = {};
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const record = parseRecord(flat[index + 1]);
      if (record) records[flat[index]] = record;
      else
        this.logger.error(
          `Ignored the malformed record ${JSON.stringify(flat[index].slice(0, 200))} in ${this.recordsKey}`,
        );
    }
    return { token, records };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.remote) {
      const stopResync = this.connection.onResubscribed(() => this.notify());
      const stop = this.connection
        .subscribe(this.channel, () => this.notify())
        .catch((error: unknown) => {
          this.logger.warn(`Could not subscribe to ${this.channel}: ${(error as Error)?.message ?? String(error)}`);
          return undefined;
        });
      this.remote = { stop, stopResync };
    }
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0 || !this.remote) return;
      const remote = this.remote;
      this.remote = undefined;
      remote.stopResync();
      void remote.stop.then((stop) => stop?.());
    };
  }

  private notify(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.error('A registry state listener failed', (error as Error)?.stack ?? String(error));
      }
    }
  }
}

/** A record as stored, if it is one: `{ disabled: true }` or `{ registered: { type, options, handler, … } }`. */
function parseRecord(json: string | undefined): McpRegistryRecord | undefined {
  if (typeof json !== 'string' || json.length > MAX_RECORD_BYTES) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (value.disabled === true && Object.keys(value).length === 1) return { disabled: true };
  const registered = value.registered;
  if (!isObject(registered) || !isObject(registered.options) || typeof registered.handler !== 'string')
    return undefined;
  if (!['tool', 'prompt', 'resource', 'appView', 'resourceTemplate'].includes(registered.type as string))
    return undefined;
  if (
    registered.scopes !== undefined &&
    !(Array.isArray(registered.scopes) && registered.scopes.every((scope) => typeof scope === 'string'))
  )
    return undefined;
  if (registered.uri !== undefined && typeof registered.uri !== 'string') return undefined;
  return value as McpRegistryRecord;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
