import { Controller, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { randomBytes } from 'node:crypto';
import { McpModule } from 'nest-mcp';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';
import { McpRedisHealthIndicator } from 'nest-mcp-redis/health';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type RunningApp, startApp } from '../support/app.factory.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/** The health indicator of nest-mcp-redis behind a real terminus controller, against a real redis-server. */

@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly redis: McpRedisHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.redis.isHealthy()]);
  }
}

@Module({ imports: [TerminusModule], controllers: [HealthController], providers: [McpRedisHealthIndicator] })
class HealthModule {}

/** Polls `/health` until its status is `status` (Redis and BullMQ reconnect in the background). */
async function healthUntil(
  baseUrl: string,
  status: number,
  timeoutMs = 15_000,
): Promise<{ status: number; body: any }> {
  const deadline = Date.now() + timeoutMs;
  let last: { status: number; body: unknown } | undefined;
  while (Date.now() < deadline) {
    const response = await fetch(`${baseUrl}/health`);
    last = { status: response.status, body: await response.json() };
    if (last.status === status) return last as { status: number; body: any };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`/health did not answer ${status} within ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

describe.each(ADAPTERS)('McpRedisHealthIndicator over HTTP (%s)', (adapter) => {
  let redis: RedisServer;
  let running: RunningApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    running = await startApp(adapter, {
      imports: [
        McpRedisModule.forRoot({ url: redis.url, commandTimeoutMs: 1_000 }),
        McpModule.forRootAsync({
          inject: [McpRedis],
          useFactory: (mcpRedis: McpRedis) =>
            mcpRedis.serverOptions({
              name: 'health',
              version: '1.0.0',
              requestState: { keys: [randomBytes(32).toString('base64')] },
            }),
        }),
        HealthModule,
      ],
    });
  });
  afterAll(async () => {
    await running?.close();
    await redis?.dispose();
  });

  it('answers 200 with Redis up and the task worker running, with the queue counts', async () => {
    const { body } = await healthUntil(running.baseUrl, 200);
    expect(body.status).toBe('ok');
    expect(body.info['mcp-redis']).toMatchObject({ status: 'up', redis: 'up', taskQueue: { worker: 'running' } });
    expect(body.info['mcp-redis'].taskQueue).toEqual(
      expect.objectContaining({ waiting: expect.any(Number), active: expect.any(Number), delayed: expect.any(Number) }),
    );
  });

  it('answers 503 with the reason once Redis is stopped, and 200 again once it is back', async () => {
    await redis.stop({ hard: true });
    try {
      const { body } = await healthUntil(running.baseUrl, 503);
      expect(body.status).toBe('error');
      expect(body.error['mcp-redis']).toMatchObject({ status: 'down', redis: 'unreachable' });
      expect(body.error['mcp-redis'].reason).toContain('redis: unreachable');
    } finally {
      await redis.start();
    }
    const { body } = await healthUntil(running.baseUrl, 200, 30_000);
    expect(body.info['mcp-redis']).toMatchObject({ status: 'up', redis: 'up' });
  });
});

@Module({})
class ShopModule {}

@Module({})
class AdminModule {}

describe.each(ADAPTERS)('McpRedisHealthIndicator of an application with two named servers (%s)', (adapter) => {
  let redis: RedisServer;
  let running: RunningApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    const requestState = { keys: [randomBytes(32).toString('base64')] };
    running = await startApp(adapter, {
      imports: [
        McpRedisModule.forRoot({ url: redis.url, commandTimeoutMs: 1_000 }),
        McpModule.forRootAsync({
          name: 'shop',
          include: [ShopModule],
          inject: [McpRedis],
          useFactory: (mcpRedis: McpRedis) =>
            mcpRedis.serverOptions({ name: 'shop', version: '1.0.0', requestState }, { server: 'shop' }),
        }),
        McpModule.forRootAsync({
          name: 'admin',
          path: '/admin/mcp',
          include: [AdminModule],
          inject: [McpRedis],
          useFactory: (mcpRedis: McpRedis) =>
            mcpRedis.serverOptions({ name: 'admin', version: '1.0.0', requestState }, { server: 'admin' }),
        }),
        ShopModule,
        AdminModule,
        HealthModule,
      ],
    });
  });
  afterAll(async () => {
    await running?.close();
    await redis?.dispose();
  });

  it("checks each server's own task worker (the module's queue serves none of them), and names the one down", async () => {
    const { body } = await healthUntil(running.baseUrl, 200);
    const details = body.info['mcp-redis'];
    expect(details).toMatchObject({
      status: 'up',
      redis: 'up',
      serverTaskQueues: { shop: { worker: 'running' }, admin: { worker: 'running' } },
    });
    expect(details.taskQueue).toBeUndefined();

    // The admin server's worker stops (as at shutdown): the indicator is down and says whose.
    await running.app.get(McpRedis).forServer('admin').taskRunner.close();
    const down = await healthUntil(running.baseUrl, 503);
    expect(down.body.error['mcp-redis']).toMatchObject({
      status: 'down',
      serverTaskQueues: { shop: { worker: 'running' }, admin: { worker: 'closed' } },
      reason: 'task worker (admin): closed',
    });
  });
});
