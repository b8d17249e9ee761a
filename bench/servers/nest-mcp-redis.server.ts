import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpModule, type McpModuleOptions, McpPublisher } from '../../libs/mcp/src/index.js';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import { McpRedis, McpRedisModule } from '../../libs/mcp-redis/src/index.js';
import { BenchTaskTools, BenchTools } from './nest-mcp/bench.tools.js';
import { BenchResources } from './nest-mcp-redis/bench.resources.js';
import { preciseNow } from './shared/precise-clock.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * One replica of nest-mcp on Redis (`--redis URL`), or the same server on the in-memory bus, task store and runner
 * (no `--redis`), for the scale-out workloads:
 *
 *   node --import dist/bench/bench/servers/package-alias.loader.js dist/bench/bench/servers/nest-mcp-redis.server.js \
 *     --adapter express --port 0 [--redis redis://127.0.0.1:6379 --prefix bench]
 *
 * The wiring is the public one (`McpRedisModule.forRoot` + `McpModule.forRootAsync` with `McpRedis.serverOptions`),
 * with a shared requestState key, room for tens of thousands of listen streams from one address and of tasks from
 * one anonymous owner, and tasks kept one minute. Tools: `echo`, `count`, `confirm`, `echo_task`; one resource.
 * IPC commands besides the runtime's: `publish` (calls `McpPublisher.resourceUpdated`, answers when it was called),
 * `clock` (this process's clock, to relate its timestamps to the harness's), `listen-open`.
 */

/** A fixed 32-byte key, base64: bench-only, never a secret. The same for every replica, as Redis requires. */
const BENCH_STATE_KEY = createHash('sha256').update('nest-mcp bench requestState key').digest('base64');
/** Tens of thousands of tasks from one anonymous owner. */
const TASK_LIMITS = { maxTasksPerOwner: 1_000_000, maxTasks: 1_000_000 };

interface RedisArgs {
  url: string;
  keyPrefix: string;
}

/** `--redis URL` and `--prefix P` (the runtime's parser ignores options it does not know). */
function redisArgs(argv: string[] = process.argv.slice(2)): RedisArgs | undefined {
  const value = (name: string) => {
    const index = argv.indexOf(`--${name}`);
    return index === -1 ? undefined : argv[index + 1];
  };
  const url = value('redis');
  if (url === undefined) return undefined;
  if (!/^rediss?:\/\//.test(url)) throw new Error(`--redis expects a redis:// URL, got "${url}"`);
  return { url, keyPrefix: value('prefix') ?? 'nest-mcp-bench' };
}

function mcpOptions(): McpModuleOptions {
  return {
    name: 'nest-mcp-redis-bench',
    version: '1.0.0',
    requestState: { keys: [BENCH_STATE_KEY] },
    maxListenStreams: 20_000,
    // Every bench stream comes from one anonymous address.
    maxListenStreamsPerAddress: 20_000,
    tasks: { defaultTtlMs: 60_000, ...TASK_LIMITS },
  };
}

function benchModule(redis: RedisArgs | undefined): DynamicModule {
  const imports = redis
    ? [
        McpRedisModule.forRoot({ url: redis.url, keyPrefix: redis.keyPrefix, tasks: TASK_LIMITS }),
        McpModule.forRootAsync({
          inject: [McpRedis],
          useFactory: (shared: McpRedis) => shared.serverOptions(mcpOptions()),
        }),
      ]
    : [McpModule.forRoot(mcpOptions())];
  @Module({ imports, providers: [BenchTools, BenchTaskTools, BenchResources] })
  class NestMcpRedisBenchModule {}
  return { module: NestMcpRedisBenchModule };
}

async function createApp(adapter: AdapterName, redis: RedisArgs | undefined): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(benchModule(redis), options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(benchModule(redis), new FastifyAdapter(), options);
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const redis = redisArgs();
  const app = await createApp(args.adapter, redis);
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  const publisher = app.get(McpPublisher, { strict: false });
  announce({
    name: `nest-mcp (${args.adapter}, ${redis ? `Redis ${redis.url} prefix ${redis.keyPrefix}` : 'in memory'})`,
    port: address.port,
    close: () => app.close(),
    commands: {
      clock: () => preciseNow(),
      // The timestamp is taken right before the call: the latency measured starts at `resourceUpdated`.
      publish: async (raw) => {
        const uri = String((raw as { uri?: string })?.uri);
        const publishedAt = preciseNow();
        await publisher.resourceUpdated(uri);
        return { publishedAt, returnedAt: preciseNow() };
      },
      'listen-open': () => app.get(McpSubscriptionsService, { strict: false }).openStreams,
    },
  });
}

runMain(main);
