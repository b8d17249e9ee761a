import type { DynamicModule, Type } from '@nestjs/common';
import { McpModule, type McpModuleOptions } from 'nest-mcp';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';
import { HealthModule } from '../health/index.js';

/** What a replica reads from its environment to join a cluster. */
export interface ClusterEnv {
  /** `redis://host:port`: every replica uses the same Redis. */
  readonly REDIS_URL?: string;
  /** The `requestState` keys, comma-separated (`openssl rand -base64 32`), the same on every replica: the first seals. */
  readonly MCP_STATE_KEYS?: string;
  /**
   * How long a worker's lock on a task round lasts, in ms (BullMQ `lockDuration`, also used as the stalled-job check
   * interval): a round whose replica died is re-run elsewhere within about twice this. Default 30,000.
   */
  readonly MCP_TASK_LOCK_MS?: string;
  /**
   * This replica's own route token (`sessionRoute`): its 2025-11-25 session ids start with it, so the balancer sends
   * each session back here (`npm run demo:cluster` gives `r1`, `r2`, `r3`; on Kubernetes, the pod name).
   */
  readonly MCP_SESSION_ROUTE?: string;
}

/**
 * The modules of one replica of a cluster: `McpRedisModule` on `REDIS_URL`, `McpModule` with `options` on Redis
 * (event bus, tasks, single-use `requestState`) and the shared `MCP_STATE_KEYS`, its own `MCP_SESSION_ROUTE`, and
 * `GET /health`. Refuses to start
 * without `MCP_STATE_KEYS`: a per-process key would break every round whose retry reaches another replica.
 */
export function mcpOnRedis(
  options: McpModuleOptions & { include?: readonly Type[] },
  admin: McpModuleOptions & { path: string; include?: readonly Type[] },
  env: ClusterEnv,
): Array<DynamicModule | Type> {
  const lockMs = env.MCP_TASK_LOCK_MS ? Number(env.MCP_TASK_LOCK_MS) : undefined;
  const keys = (env.MCP_STATE_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  if (keys.length === 0) {
    throw new Error(
      'REDIS_URL is set but MCP_STATE_KEYS is not: give every replica the same key (openssl rand -base64 32)',
    );
  }
  return [
    McpRedisModule.forRoot({ url: env.REDIS_URL, tasks: { lockDurationMs: lockMs, stalledIntervalMs: lockMs } }),
    McpModule.forRootAsync({
      name: options.name,
      include: options.include,
      inject: [McpRedis],
      useFactory: (redis: McpRedis) =>
        redis.serverOptions({
          ...options,
          sessionRoute: env.MCP_SESSION_ROUTE || undefined,
          requestState: { ...options.requestState, keys },
        }),
    }),
    // The admin server shares the requestState keys (a form's retry may reach another replica) and the single-use
    // store (ids are unique whichever server sealed them), not the event bus and registry state (docs/servers.md): its
    // lists never change at run time.
    McpModule.forRootAsync({
      name: admin.name,
      path: admin.path,
      include: admin.include,
      inject: [McpRedis],
      useFactory: (redis: McpRedis) => ({
        ...admin,
        sessionRoute: env.MCP_SESSION_ROUTE || undefined,
        requestState: { ...admin.requestState, keys, singleUse: redis.requestStateStore },
      }),
    }),
    HealthModule,
  ];
}
