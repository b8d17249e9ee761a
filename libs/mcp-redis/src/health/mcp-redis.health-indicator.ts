import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { McpTaskQueueStatus } from '../bullmq-task.runner.js';
import { McpRedis } from '../mcp-redis.js';
import { McpRedisConnection } from '../mcp-redis.connection.js';
import { McpRedisResolvedOptions } from '../mcp-redis-resolved-options.js';
import { WaitTimeoutError, withTimeout } from '../with-timeout.js';

/** What a check found, in the indicator's details: `reason` is there only when something is down. */
export interface McpRedisHealthDetails extends Record<string, unknown> {
  /** Whether Redis answered a PING within the command timeout. */
  readonly redis: 'up' | 'unreachable';
  /**
   * This replica's task worker and the queue's job counts, for the module's queue (that of a single server);
   * `undefined` when the queue could not be read, or when only named servers run tasks here.
   */
  readonly taskQueue?: McpTaskQueueStatus;
  /** The same for each named server's own queue (`McpRedis.serverOptions(options, { server })`), by server name. */
  readonly serverTaskQueues?: Readonly<Record<string, McpTaskQueueStatus | undefined>>;
  /** Why the indicator is down, e.g. `redis: unreachable; task worker: disconnected`. */
  readonly reason?: string;
}

/**
 * A `@nestjs/terminus` health indicator for nest-mcp on Redis: `down` when Redis does not answer a PING or one of this
 * replica's BullMQ task workers (the module's, and each named server's) is not taking rounds, with the reason in the
 * details. A check never hangs: each probe
 * is bounded by the module's `commandTimeoutMs`.
 *
 * Wire it with `TerminusModule` and a controller (`McpRedisModule` must be imported, it is global by default):
 *
 * @example
 * ```ts
 * import { McpRedisHealthIndicator } from 'nest-mcp-redis/health';
 *
 * @Controller('health')
 * class HealthController {
 *   constructor(private readonly health: HealthCheckService, private readonly redis: McpRedisHealthIndicator) {}
 *
 *   @Get()
 *   @HealthCheck()
 *   check() {
 *     return this.health.check([() => this.redis.isHealthy()]); // 200 when up; 503 with the reason when down
 *   }
 * }
 *
 * @Module({ imports: [TerminusModule], controllers: [HealthController], providers: [McpRedisHealthIndicator] })
 * export class HealthModule {}
 * ```
 */
@Injectable()
export class McpRedisHealthIndicator {
  /** @internal Created by Nest's injector (`McpRedisModule`), from the module's internal connection and options. */
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly connection: McpRedisConnection,
    private readonly redis: McpRedis,
    private readonly options: McpRedisResolvedOptions,
  ) {}

  /** Checks the Redis connection and the task queue; `key` names the indicator in the health report. */
  async isHealthy<const Key extends string = 'mcp-redis'>(
    key: Key = 'mcp-redis' as Key,
  ): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.health.check(key);
    // The queues servers run their rounds on; the module's also when no server runs any yet (not bootstrapped).
    const named = this.redis.namedServers().filter((backends) => backends.taskRunner.attached);
    const checkModule = this.redis.taskRunner.attached || named.length === 0;
    const timeoutMs = this.options.commandTimeoutMs;
    const [pong, queue, ...serverQueues] = await Promise.all([
      this.connection.ping(),
      // Queues are read through BullMQ's own connections: bound them like the command client (commandTimeoutMs).
      checkModule ? bounded(this.redis.taskRunner.status(), timeoutMs) : undefined,
      ...named.map((backends) => bounded(backends.taskRunner.status(), timeoutMs)),
    ]);
    const reasons: string[] = [];
    if (!pong) reasons.push('redis: unreachable');
    if (queue) reasons.push(...queueReasons(queue, ''));
    named.forEach((backends, index) => reasons.push(...queueReasons(serverQueues[index]!, ` (${backends.server})`)));
    const details: McpRedisHealthDetails = {
      redis: pong ? 'up' : 'unreachable',
      ...(queue ? { taskQueue: queue.status } : {}),
      ...(named.length > 0
        ? {
            serverTaskQueues: Object.fromEntries(
              named.map((backends, index) => [backends.server, serverQueues[index]!.status]),
            ),
          }
        : {}),
    };
    return reasons.length === 0 ? indicator.up(details) : indicator.down({ ...details, reason: reasons.join('; ') });
  }
}

type QueueReading = Awaited<ReturnType<typeof bounded>>;

/** Why one queue is not well: unreadable, or its worker on this replica does not take rounds. */
function queueReasons(queue: QueueReading, server: string): string[] {
  if (queue.error !== undefined) return [`task queue${server}: ${queue.error}`];
  return queue.status.worker === 'running' ? [] : [`task worker${server}: ${queue.status.worker}`];
}

/** The queue's status, or why it could not be read within `timeoutMs`. */
async function bounded(
  status: Promise<McpTaskQueueStatus>,
  timeoutMs: number,
): Promise<{ status: McpTaskQueueStatus; error?: undefined } | { status?: undefined; error: string }> {
  try {
    return { status: await withTimeout(status, timeoutMs, 'The task queue') };
  } catch (error) {
    if (error instanceof WaitTimeoutError) return { error: `no answer within ${timeoutMs} ms` };
    return { error: `unreadable (${error instanceof Error ? error.message : String(error)})` };
  }
}
