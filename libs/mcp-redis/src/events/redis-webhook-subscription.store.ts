import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type {
  McpWebhookDeliveryState,
  McpWebhookSubscriptionRecord,
  McpWebhookSubscriptionStore,
} from 'nest-mcp/backend';
import { McpRedisConnection } from '../mcp-redis.connection.js';
import { McpRedisResolvedOptions } from '../mcp-redis-resolved-options.js';
import { withTimeout } from '../with-timeout.js';
import {
  COUNT_LIVE,
  DELETE_SUBSCRIPTION,
  PUT_SUBSCRIPTION,
  RECORD_DELIVERY,
  TRACK_PENDING,
} from './webhook-store.scripts.js';

/** Records read per pipeline when listing a type's subscriptions. */
const LIST_BATCH = 200;
/** The store key of a subscription: the SHA-256 of its key tuple, hex (`McpWebhookSubscriptionRecord.key`). */
const STORE_KEY = /^[0-9a-f]{64}$/;

/**
 * Webhook subscriptions of the events extension in Redis, shared by every replica and `durable` (they survive a
 * restart of the replicas; of Redis too, with its persistence on). Per subscription, a hash
 * `<prefix>:events:wh:sub:<key>` (the record as JSON without its delivery state, the incarnation, the delivery state)
 * that Redis expires at the granted `refreshBefore`; sorted sets by type and by principal (score: the expiry) index
 * them, expired members dropped before anything is counted; the events in flight per subscription are a sorted set
 * of positions (all scored 0, so ordered as strings, as positions compare) that lives as long as the subscription;
 * an endpoint's consent is a key that expires with it.
 *
 * Secrets reach the store sealed (AES-256-GCM with the `requestState` keys, `WebhookSecrets`): Redis never holds one
 * in clear. Every method rejects within `commandTimeoutMs` when Redis does not answer.
 */
@Injectable()
export class RedisWebhookSubscriptionStore implements McpWebhookSubscriptionStore {
  /** Serves every replica: `McpModule` refuses to start with it unless `requestState.keys` are configured. */
  readonly sharedAcrossReplicas = true;
  /** Subscriptions survive a restart of the replicas: `allowNoExpiry` may grant subscriptions without expiry. */
  readonly durable = true;

  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    private readonly connection: McpRedisConnection,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  /** The named server this is of (`McpRedis.forServer`); `undefined` for the module's own. */
  get server(): string | undefined {
    return this.options.server;
  }

  async get(key: string): Promise<McpWebhookSubscriptionRecord | undefined> {
    if (!STORE_KEY.test(key)) return undefined;
    const [record, delivery] = await this.bounded(
      this.connection.commands.hmget(this.recordKey(key), 'record', 'delivery'),
    );
    return this.parse(record, delivery);
  }

  async put(record: McpWebhookSubscriptionRecord): Promise<void> {
    const { delivery, ...rest } = record;
    const expiry = record.expiresAt === null ? '+inf' : String(record.expiresAt);
    await this.bounded(
      PUT_SUBSCRIPTION.run(
        this.connection.commands,
        [
          this.recordKey(record.key),
          this.pendingKey(record.key),
          this.byNameKey(record.name),
          this.byPrincipalKey(record.principal),
        ],
        [Date.now(), JSON.stringify(rest), record.incarnation, JSON.stringify(delivery), record.key, expiry],
      ),
    );
  }

  async delete(key: string): Promise<boolean> {
    const record = await this.get(key);
    if (!record) {
      // Expired or never there; its index entries (if any) are dropped when they are next pruned.
      if (STORE_KEY.test(key))
        await this.bounded(this.connection.commands.del(this.recordKey(key), this.pendingKey(key)));
      return false;
    }
    const keys = [
      this.recordKey(key),
      this.pendingKey(key),
      this.byNameKey(record.name),
      this.byPrincipalKey(record.principal),
    ];
    return (await this.bounded(DELETE_SUBSCRIPTION.run(this.connection.commands, keys, [key]))) === 1;
  }

  async listByName(name: string): Promise<readonly McpWebhookSubscriptionRecord[]> {
    const index = this.byNameKey(name);
    const commands = this.connection.commands;
    await this.bounded(commands.zremrangebyscore(index, '-inf', String(Date.now())));
    const keys = await this.bounded(commands.zrange(index, '0', '-1'));
    const records: McpWebhookSubscriptionRecord[] = [];
    for (let start = 0; start < keys.length; start += LIST_BATCH) {
      const pipeline = commands.pipeline();
      for (const key of keys.slice(start, start + LIST_BATCH))
        pipeline.hmget(this.recordKey(key), 'record', 'delivery');
      const answers = (await this.bounded(pipeline.exec())) ?? [];
      for (const [error, fields] of answers) {
        if (error) throw error;
        const [record, delivery] = fields as [string | null, string | null];
        const parsed = this.parse(record, delivery);
        if (parsed?.name === name) records.push(parsed);
      }
    }
    return records;
  }

  async countByPrincipal(principal: string): Promise<number> {
    return Number(
      await this.bounded(COUNT_LIVE.run(this.connection.commands, [this.byPrincipalKey(principal)], [Date.now()])),
    );
  }

  async recordDelivery(key: string, incarnation: string, state: McpWebhookDeliveryState): Promise<void> {
    await this.bounded(
      RECORD_DELIVERY.run(this.connection.commands, [this.recordKey(key)], [incarnation, JSON.stringify(state)]),
    );
  }

  async verifiedUntil(principal: string, url: string): Promise<number | undefined> {
    const until = Number(await this.bounded(this.connection.commands.get(this.consentKey(principal, url))));
    return Number.isFinite(until) && until > Date.now() ? until : undefined;
  }

  async markVerified(principal: string, url: string, until: number): Promise<void> {
    if (until <= Date.now()) return;
    await this.bounded(
      this.connection.commands.set(this.consentKey(principal, url), String(until), 'PXAT', String(until)),
    );
  }

  async trackPending(key: string, position: string): Promise<void> {
    await this.bounded(
      TRACK_PENDING.run(this.connection.commands, [this.recordKey(key), this.pendingKey(key)], [position]),
    );
  }

  async settlePending(key: string, position: string): Promise<void> {
    await this.bounded(this.connection.commands.zrem(this.pendingKey(key), position));
  }

  async pending(key: string): Promise<{ oldest?: string; count: number }> {
    const [[countError, count], [oldestError, oldest]] = ((await this.bounded(
      this.connection.commands.multi().zcard(this.pendingKey(key)).zrange(this.pendingKey(key), '0', '0').exec(),
    )) ?? []) as Array<[Error | null, unknown]>;
    if (countError || oldestError) throw countError ?? oldestError;
    const first = (oldest as string[])[0];
    return { ...(first !== undefined && { oldest: first }), count: Number(count) };
  }

  /** A stored record, unless it is missing, malformed or expired. */
  private parse(record: string | null, delivery: string | null): McpWebhookSubscriptionRecord | undefined {
    if (record === null) return undefined;
    try {
      const parsed = {
        ...(JSON.parse(record) as Omit<McpWebhookSubscriptionRecord, 'delivery'>),
        delivery: JSON.parse(delivery ?? '{}') as McpWebhookDeliveryState,
      };
      if (
        typeof parsed.key !== 'string' ||
        typeof parsed.incarnation !== 'string' ||
        typeof parsed.sealedSecret !== 'string'
      )
        return undefined;
      if (parsed.expiresAt !== null && parsed.expiresAt <= Date.now()) return undefined;
      return parsed;
    } catch {
      return undefined;
    }
  }

  private recordKey(key: string): string {
    return this.options.key('events', 'wh', 'sub', key);
  }

  private pendingKey(key: string): string {
    return this.options.key('events', 'wh', 'pending', key);
  }

  private byNameKey(name: string): string {
    return this.options.key('events', 'wh', 'by-name', name);
  }

  private byPrincipalKey(principal: string): string {
    return this.options.key('events', 'wh', 'by-principal', digest(principal));
  }

  private consentKey(principal: string, url: string): string {
    return this.options.key('events', 'wh', 'consent', digest(`${principal}\n${url}`));
  }

  private bounded<T>(promise: Promise<T>): Promise<T> {
    return withTimeout(promise, this.options.commandTimeoutMs);
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
