import { Inject, Injectable } from '@nestjs/common';
import { MCP_REDIS_MODULE_OPTIONS } from './mcp-redis-module.definition.js';
import type { McpRedisEventsOptions, McpRedisModuleOptions } from './mcp-redis-options.interface.js';

/**
 * The module's options with every default applied and every bound checked, read by the Redis components.
 * @internal
 */
@Injectable()
export class McpRedisResolvedOptions {
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
  readonly tasks: Required<McpRedisTasksResolved>;
  readonly requestState: { readonly maxStatesPerCaller: number };
  readonly events: Required<McpRedisEventsOptions>;
  /** The named server these options are scoped to ({@link forServer}); `undefined` for the module's own. */
  readonly server?: string;

  constructor(@Inject(MCP_REDIS_MODULE_OPTIONS) readonly raw: McpRedisModuleOptions) {
    const prefix = raw.keyPrefix ?? 'nest-mcp';
    if (typeof prefix !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) {
      throw new Error(
        `McpRedisModule: keyPrefix must be 1-64 characters of A-Z a-z 0-9 _ . : - (got ${JSON.stringify(prefix)})`,
      );
    }
    this.keyPrefix = prefix;
    this.commandTimeoutMs = positive('commandTimeoutMs', raw.commandTimeoutMs, 5_000);
    const tasks = raw.tasks ?? {};
    const queueName = tasks.queueName ?? 'tasks';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(queueName)) {
      throw new Error(
        `McpRedisModule: tasks.queueName must be 1-64 characters of A-Z a-z 0-9 _ . - (got ${JSON.stringify(queueName)})`,
      );
    }
    this.tasks = {
      queueName,
      concurrency: positive('tasks.concurrency', tasks.concurrency, 16),
      lockDurationMs: positive('tasks.lockDurationMs', tasks.lockDurationMs, 30_000),
      stalledIntervalMs: positive('tasks.stalledIntervalMs', tasks.stalledIntervalMs, 30_000),
      maxStalledCount: positive('tasks.maxStalledCount', tasks.maxStalledCount, 2),
      maxTasksPerOwner: positive('tasks.maxTasksPerOwner', tasks.maxTasksPerOwner, 100),
      maxTasks: positive('tasks.maxTasks', tasks.maxTasks, 100_000),
    };
    const events = raw.events ?? {};
    const eventsQueue = events.queueName ?? 'webhooks';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(eventsQueue) || eventsQueue === queueName) {
      throw new Error(
        `McpRedisModule: events.queueName must be 1-64 characters of A-Z a-z 0-9 _ . -, other than tasks.queueName (got ${JSON.stringify(eventsQueue)})`,
      );
    }
    this.events = {
      queueName: eventsQueue,
      concurrency: positive('events.concurrency', events.concurrency, 16),
      lockDurationMs: positive('events.lockDurationMs', events.lockDurationMs, 30_000),
      stalledIntervalMs: positive('events.stalledIntervalMs', events.stalledIntervalMs, 30_000),
      maxStalledCount: positive('events.maxStalledCount', events.maxStalledCount, 2),
    };
    this.requestState = {
      maxStatesPerCaller: positive('requestState.maxStatesPerCaller', raw.requestState?.maxStatesPerCaller, 10_000),
    };
  }

  /** `<keyPrefix>:<parts…>`: every key and channel of the module. */
  key(...parts: string[]): string {
    return [this.keyPrefix, ...parts].join(':');
  }

  /**
   * The same settings for the components of the named server `name` (`McpRedis.forServer`): its keys, channels and
   * BullMQ queues live under `<keyPrefix>:server:<name>` (the name URI-encoded, so that no name reaches into another
   * server's keys), apart from every other server's. The settings are inherited, only `keyPrefix` and `server` differ.
   */
  forServer(name: string): McpRedisResolvedOptions {
    const scoped = Object.create(this) as McpRedisResolvedOptions;
    Object.defineProperties(scoped, {
      keyPrefix: { value: `${this.keyPrefix}:server:${encodeURIComponent(name)}`, enumerable: true },
      server: { value: name, enumerable: true },
    });
    return Object.freeze(scoped);
  }
}

interface McpRedisTasksResolved {
  queueName: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  maxTasksPerOwner: number;
  maxTasks: number;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`McpRedisModule: ${name} must be a positive integer (got ${String(value)})`);
  return value;
}
