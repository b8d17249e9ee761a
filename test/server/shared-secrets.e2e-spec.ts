import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { McpModule, McpPublisher, type McpModuleOptions } from 'nest-mcp';
import { MCP_EVENT_BUS, type McpChangeEvent, type McpEventBus, type McpRequestStateStore } from 'nest-mcp/backend';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/**
 * Shared secrets: a component that serves several replicas (`sharedAcrossReplicas`) makes `McpModule` refuse to start
 * without `requestState.keys`, since a per-process random key breaks every round whose retry reaches another replica.
 */

/** A bus that says it links replicas; it delivers in process only, which is all these tests need. */
class FleetEventBus implements McpEventBus {
  readonly sharedAcrossReplicas = true;
  private readonly listeners = new Set<(event: McpChangeEvent) => void>();
  publish(event: McpChangeEvent): void {
    for (const listener of this.listeners) listener(event);
  }
  subscribe(listener: (event: McpChangeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const SERVER = { name: 'shared-secrets', version: '1.0.0' } satisfies McpModuleOptions;
const KEY = randomBytes(32).toString('base64');

async function compile(options: McpModuleOptions): Promise<TestingModule> {
  return Test.createTestingModule({ imports: [McpModule.forRoot(options)] }).compile();
}

async function startFailure(start: () => Promise<TestingModule>): Promise<Error> {
  let moduleRef: TestingModule | undefined;
  try {
    moduleRef = await start();
  } catch (error) {
    return error as Error;
  } finally {
    await moduleRef?.close();
  }
  throw new Error('the module started, but it should have refused to');
}

describe('shared secrets: a component shared across replicas needs requestState.keys', () => {
  it('refuses to start with a shared event bus and no keys, naming the option, the component and how to make a key', async () => {
    const error = await startFailure(() => compile({ ...SERVER, eventBus: new FleetEventBus() }));
    expect(error.message).toContain('eventBus (FleetEventBus)');
    expect(error.message).toContain('requestState.keys is required');
    expect(error.message).toContain('openssl rand -base64 32');
  });

  it('refuses an empty keys list as well', async () => {
    const error = await startFailure(() =>
      compile({ ...SERVER, eventBus: new FleetEventBus(), requestState: { keys: [] } }),
    );
    expect(error.message).toContain('eventBus (FleetEventBus)');
  });

  it('names a shared single-use store (a plain object) and a shared task store', async () => {
    const singleUse: McpRequestStateStore = { sharedAcrossReplicas: true, consume: () => true };
    const error = await startFailure(() => compile({ ...SERVER, requestState: { singleUse } }));
    expect(error.message).toContain('requestState.singleUse (a shared component)');

    const store = { sharedAcrossReplicas: true } as unknown as NonNullable<McpModuleOptions['tasks']>['store'];
    const both = await startFailure(() => compile({ ...SERVER, eventBus: new FleetEventBus(), tasks: { store } }));
    expect(both.message).toContain('eventBus (FleetEventBus), tasks.store (a shared component)');
  });

  it('starts with a shared bus once keys are configured, and a listener hears a publish', async () => {
    const bus = new FleetEventBus();
    const moduleRef = await compile({ ...SERVER, eventBus: bus, requestState: { keys: [KEY] } });
    try {
      const heard: McpChangeEvent[] = [];
      bus.subscribe((event) => heard.push(event));
      await moduleRef.get(McpPublisher).resourceUpdated('ops://fleet');
      expect(moduleRef.get(MCP_EVENT_BUS)).toBe(bus);
      expect(heard).toEqual([{ type: 'resourceUpdated', uri: 'ops://fleet' }]);
    } finally {
      await moduleRef.close();
    }
  });

  it('still starts with a per-process key when nothing is shared (one process)', async () => {
    const unshared: McpEventBus = { publish: () => undefined, subscribe: () => () => undefined };
    const moduleRef = await compile({ ...SERVER, eventBus: unshared });
    expect(moduleRef.get(MCP_EVENT_BUS)).toBe(unshared);
    await moduleRef.close();
  });
});

describe('shared secrets with nest-mcp-redis', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  /** McpRedisModule, and McpModule options built from McpRedis by `options`. */
  function withRedis(options: (redis: McpRedis) => McpModuleOptions): Promise<TestingModule> {
    @Module({
      imports: [
        McpRedisModule.forRoot({ url: redis.url }),
        McpModule.forRootAsync({ inject: [McpRedis], useFactory: options }),
      ],
    })
    class RedisAppModule {}
    return Test.createTestingModule({ imports: [RedisAppModule] }).compile();
  }

  it('refuses to start when the Redis components are wired by hand without keys', async () => {
    const error = await startFailure(() =>
      withRedis((redis) => ({
        ...SERVER,
        eventBus: redis.eventBus,
        tasks: { store: redis.taskStore, runner: redis.taskRunner },
        requestState: { singleUse: redis.requestStateStore },
      })),
    );
    expect(error.message).toContain(
      'eventBus (RedisEventBus), tasks.store (RedisTaskStore), requestState.singleUse (RedisRequestStateStore)',
    );
    expect(error.message).toContain('openssl rand -base64 32');
  });

  it('McpRedis.serverOptions refuses options without keys', async () => {
    const error = await startFailure(() => withRedis((redis) => redis.serverOptions({ ...SERVER })));
    expect(error.message).toContain('McpRedis.serverOptions: requestState.keys is required');
    const empty = await startFailure(() =>
      withRedis((redis) => redis.serverOptions({ ...SERVER, requestState: { keys: [] } })),
    );
    expect(empty.message).toContain('requestState.keys is required');
  });

  it('starts when the Redis components are wired by hand with keys', async () => {
    const moduleRef = await withRedis((redis) => ({
      ...SERVER,
      eventBus: redis.eventBus,
      requestState: { keys: [KEY] },
    }));
    expect(moduleRef.get(McpRedis).eventBus.sharedAcrossReplicas).toBe(true);
    await moduleRef.close();
  });
});
