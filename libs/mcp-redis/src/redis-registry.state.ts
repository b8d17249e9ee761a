import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { McpRegistryRecord, McpRegistrySnapshot, McpRegistryState } from 'nest-mcp/backend';
import { McpRedisConnection } from './mcp-redis.connection.js';
import { type RegistryKeys, registryKeys } from './registry-keys.js';

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
export class RedisRegistryState implements McpRegistryState {
  private readonly logger = new Logger('McpRedisRegistryState');
  /** Where this state lives: `registryKeys(keyPrefix)`, or `registryKeys(keyPrefix, 'server', name)`. */
  private readonly keys: RegistryKeys;
  private readonly redis: ScriptedRedis;
  private readonly listeners = new Set<() => void>();
  private remote?: { stop: Promise<(() => void) | undefined>; stopResync: () => void };

  /**
   * @internal Created by `McpRedisModule` (the state of a server without `include`); a named server's through
   * {@link forServer}. `scopes` is shared by the module's state and every named one: one instance per name.
   */
  constructor(
    private readonly connection: McpRedisConnection,
    private readonly keyPrefix: string,
    /** The named server this state is of (`forServer`); `undefined` for the module's state. */
    readonly server?: string,
    private readonly scopes = new Map<string, RedisRegistryState>(),
  ) {
    this.keys = server === undefined ? registryKeys(keyPrefix) : registryKeys(keyPrefix, 'server', server);
    connection.scripted('nestMcpRegistryCommit', 2, COMMIT);
    this.redis = connection.scripted<ScriptedRedis>('nestMcpRegistryRead', 2, READ);
  }

  /**
   * The registry state of the named server `name`: its own hash `<keyPrefix>:registry:server:<name>`, token and
   * channel, so two servers of one application keep their runtime entries apart. `McpRedis.serverOptions` uses it for
   * a named server (`include` in its options, or `{ server }`); the module's own state is that of a server without
   * one (`<keyPrefix>:registry`). One instance per name, whichever state it is asked of.
   */
  forServer(name: string): RedisRegistryState {
    if (typeof name !== 'string' || name.length === 0)
      throw new Error('RedisRegistryState.forServer: the server name must be a non-empty string');
    let scoped = this.scopes.get(name);
    if (!scoped) {
      scoped = new RedisRegistryState(this.connection, this.keyPrefix, name, this.scopes);
      this.scopes.set(name, scoped);
    }
    return scoped;
  }

  async commit(key: string, record: McpRegistryRecord | undefined): Promise<void> {
    const token = await this.redis.nestMcpRegistryCommit(
      this.keys.records,
      this.keys.token,
      key,
      record === undefined ? '' : JSON.stringify(record),
    );
    // Announced after the commit, on the same connection: a replica that hears of it reads a state that has it.
    await this.redis.publish(this.keys.channel, token);
  }

  async token(): Promise<string> {
    return (await this.redis.get(this.keys.token)) ?? '';
  }

  async read(): Promise<McpRegistrySnapshot> {
    const [token, flat] = await this.redis.nestMcpRegistryRead(this.keys.records, this.keys.token);
    const records: Record<string, McpRegistryRecord> = {};
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const record = parseRecord(flat[index + 1]);
      if (record) records[flat[index]] = record;
      else
        this.logger.error(
          `Ignored the malformed record ${JSON.stringify(flat[index].slice(0, 200))} in ${this.keys.records}`,
        );
    }
    return { token, records };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.remote) {
      const stopResync = this.connection.onResubscribed(() => this.notify());
      const stop = this.connection
        .subscribe(this.keys.channel, () => this.notify())
        .catch((error: unknown) => {
          this.logger.warn(
            `Could not subscribe to ${this.keys.channel}: ${(error as Error)?.message ?? String(error)}`,
          );
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
  if (!['tool', 'prompt', 'resource', 'appView', 'resourceTemplate', 'eventType'].includes(registered.type as string))
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
