import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicatedRateLimitsModule } from '../../docs/examples/ecosystem/rate-limits-redis.module.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { startNginx, upstreamOf, type NginxBalancer } from '../support/nginx.js';
import { mcpPost, type RawResponse } from '../support/raw-request.util.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { closeReplica, replicasReconnected } from '../support/redis-replicas.js';

/**
 * `@nestjs/throttler` with the Redis storage of nest-mcp-redis (`McpRedis.throttlerStorage`, issue #30): three replicas
 * on one redis-server behind nginx (round robin, no affinity). The limit holds for a caller across the replicas — each
 * replica alone sees only a third of the calls, so a per-process count would let three times as many through —
 * and Redis down refuses calls with 503 instead of letting them through uncounted.
 */

const LIMIT = 6;

describe.each(ADAPTERS)('rate limits across three replicas on Redis behind nginx (%s)', (adapter) => {
  let redis: RedisServer;
  let nginx: NginxBalancer;
  const replicas: RunningApp[] = [];
  let mcpUrl: URL;

  beforeAll(async () => {
    redis = await startRedisServer();
    const settings = { redisUrl: redis.url, stateKeys: [randomBytes(32).toString('base64')], limit: LIMIT };
    for (let index = 0; index < 3; index++)
      replicas.push(await startApp(adapter, { imports: [replicatedRateLimitsModule(settings)] }));
    nginx = await startNginx({ upstreams: replicas.map((replica) => Number(new URL(replica.baseUrl).port)) });
    mcpUrl = new URL(`${nginx.url}/mcp`);
  });

  afterAll(async () => {
    await nginx?.dispose();
    for (const replica of replicas) await closeReplica(replica);
    await redis?.dispose();
  });

  const search = (user: string): Promise<RawResponse> =>
    mcpPost(mcpUrl, {
      method: 'tools/call',
      params: { name: 'search', arguments: { query: user } },
      headers: { 'x-user': user },
    });

  it('holds the limit for a caller whichever replica serves each call', async () => {
    const served = new Set<string>();
    for (let call = 0; call < LIMIT; call++) {
      const response = await search('alice');
      expect(response.status, response.text).toBe(200);
      expect((response.json as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
        hits: ['alice-1', 'alice-2'],
      });
      served.add(upstreamOf(response)!);
    }
    expect(served.size).toBe(3); // every replica counted some of them

    for (let call = 0; call < 3; call++) {
      const over = await search('alice');
      expect(over.status).toBe(429);
      const error = (over.json as { error: { code: number; data: { retryAfterSeconds: number } } }).error;
      expect(error).toMatchObject({ code: -32603, message: 'ThrottlerException: Too Many Requests' });
      expect(error.data.retryAfterSeconds).toBeGreaterThan(0);
      expect(over.headers.get('retry-after')).toBe(String(error.data.retryAfterSeconds));
    }
    // Another caller has its own count on every replica.
    expect((await search('bob')).status).toBe(200);
  });

  it('refuses calls with 503 while Redis is down (never uncounted), and counts again once it is back', async () => {
    await redis.stop();
    try {
      const refused = await search('carol');
      expect(refused.status).toBe(503);
      expect((refused.json as { error: unknown }).error).toMatchObject({
        code: -32603,
        data: { retryAfterSeconds: 1 },
      });
      expect(refused.headers.get('retry-after')).toBe('1');
    } finally {
      await redis.start();
      await replicasReconnected(replicas);
    }
    expect((await search('carol')).status).toBe(200);
  });
});
