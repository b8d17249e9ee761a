import type { Redis, RedisOptions } from 'ioredis';

/** Tasks on Redis: the BullMQ queue that carries task rounds, and the bounds of the task store. */
export interface McpRedisTasksOptions {
  /** Name of the BullMQ queue of task rounds (under `keyPrefix`). Default `tasks`. */
  queueName?: string;
  /** Rounds one replica runs at once. Default 16. */
  concurrency?: number;
  /**
   * How long a worker's lock on a round lasts without renewal, in milliseconds: after a worker died (kill -9, lost
   * host) its round is re-run elsewhere within about `lockDurationMs + stalledIntervalMs`. Default 30,000.
   */
  lockDurationMs?: number;
  /** How often workers look for rounds whose worker died (BullMQ's stalled-job check), in milliseconds. Default 30,000. */
  stalledIntervalMs?: number;
  /** How many times a round whose worker died is re-run before its task fails. Default 2. */
  maxStalledCount?: number;
  /** Most tasks one owner (principal, or all anonymous callers together) keeps at once. Default 100. */
  maxTasksPerOwner?: number;
  /** Most tasks kept in total. Default 100,000. */
  maxTasks?: number;
}

/** Events (the MCP Events extension) on Redis: the BullMQ queue of webhook deliveries. */
export interface McpRedisEventsOptions {
  /** Name of the BullMQ queue of webhook deliveries (under `keyPrefix`). Default `webhooks`. */
  queueName?: string;
  /** Delivery attempts one replica makes at once. Default 16. */
  concurrency?: number;
  /**
   * How long a worker's lock on an attempt lasts without renewal, in milliseconds: after a worker died mid-attempt
   * the attempt is made again elsewhere within about `lockDurationMs + stalledIntervalMs`. Default 30,000.
   */
  lockDurationMs?: number;
  /** How often workers look for attempts whose worker died (BullMQ's stalled-job check), in milliseconds. Default 30,000. */
  stalledIntervalMs?: number;
  /** How many times an attempt whose worker died is made again before it is given up. Default 2. */
  maxStalledCount?: number;
}

/** The single-use `requestState` store on Redis. */
export interface McpRedisRequestStateOptions {
  /** Most live (unexpired) used states one caller may hold; more are refused with HTTP 429. Default 10,000. */
  maxStatesPerCaller?: number;
}

/**
 * Options of `McpRedisModule.forRoot` / `forRootAsync`. Give `connection` (an ioredis client you own), or `url` /
 * `redis` (the module connects and disconnects). Every replica of one MCP server uses the same Redis and `keyPrefix`.
 */
export interface McpRedisModuleOptions {
  /** An ioredis client. The module duplicates it for its own connections and never closes it. */
  connection?: Redis;
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`), when no `connection` is given. */
  url?: string;
  /** ioredis options, when no `connection` is given (merged over what `url` says). */
  redis?: RedisOptions;
  /**
   * Prefix of every key and channel this module uses. Replicas of one server share it; two servers on one Redis
   * need two. Default `nest-mcp`.
   */
  keyPrefix?: string;
  /**
   * How long a Redis command may take before it fails, in milliseconds, so that a call never hangs on a Redis that is
   * down: task calls then fail with a clear error. Default 5,000.
   */
  commandTimeoutMs?: number;
  /** Tasks: the BullMQ queue and the store's bounds. */
  tasks?: McpRedisTasksOptions;
  /** The single-use `requestState` store. */
  requestState?: McpRedisRequestStateOptions;
  /** Events: the BullMQ queue of webhook deliveries (the replay log and subscriptions need no options). */
  events?: McpRedisEventsOptions;
}

/** The second argument of `McpRedis.serverOptions`: which server of the application the options are for. */
export interface McpRedisServerChoice {
  /**
   * The `name` of the server these options are for, when the application has several (`McpModule` with `include`):
   * its runtime registry state is then its own (`<keyPrefix>:registry:server:<name>`), never shared with another
   * server's. Needed with `McpModule.forRootAsync`, whose `include` sits beside `useFactory`, out of `serverOptions`'
   * sight; must equal `options.name`. Default: the options' `name` when they have `include`, else none (the unscoped
   * `<keyPrefix>:registry` of a single server).
   */
  server?: string;
}
