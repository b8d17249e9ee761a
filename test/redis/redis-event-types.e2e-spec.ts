import { McpEventTypes } from 'nest-mcp';
import { McpRedis } from 'nest-mcp-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisEventsReplicaModule } from '../fixtures/redis-events.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { eventsPost, resultOf } from '../support/events.util.js';
import { closeReplica } from '../support/redis-replicas.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { listen, type OpenStream } from '../support/sse-stream.reader.js';

/**
 * Event types changed at run time are the cluster's (issue #28, item 3; ADR 0027): two replicas in this process, each
 * its own `McpRedisModule` on one real redis-server and the events fixture through `McpRedis.serverOptions`. A type
 * registered on A is listed by `events/list` on B once B's listen stream heard `notifications/events/list_changed`;
 * removing it converges too; a declared type removed on A is switched off on B and on a replica started later, and
 * `enable` brings it back everywhere; a replica started later lists what the others list. Matchers travel by name.
 */

const LIST_CHANGED = 'notifications/events/list_changed';

/** Every descriptor `events/list` on `app` answers, page after page, in order. */
async function eventTypes(app: RunningApp): Promise<Array<{ name: string }>> {
  const types: Array<{ name: string }> = [];
  let cursor: string | undefined;
  do {
    const result = resultOf(await eventsPost(app.mcpUrl, 'events/list', cursor === undefined ? {} : { cursor }));
    types.push(...(result.events as Array<{ name: string }>));
    cursor = result.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return types;
}

/** The type names `events/list` on `app` answers, in order. */
async function eventNames(app: RunningApp): Promise<string[]> {
  return (await eventTypes(app)).map((type) => type.name);
}

/** The descriptor `events/list` on `app` gives for `name`. */
async function descriptorOf(app: RunningApp, name: string): Promise<unknown> {
  return (await eventTypes(app)).find((type) => type.name === name);
}

const BUILD_FINISHED = {
  name: 'build.finished',
  description: 'A CI build finished',
  input: { type: 'object', properties: { branch: { type: 'string' } } },
  payload: { type: 'object', properties: { branch: { type: 'string' }, ok: { type: 'boolean' } } },
  delivery: ['poll', 'push'] as Array<'poll' | 'push'>,
};

describe.each(ADAPTERS)('event types registered at run time, across two replicas on Redis (%s)', (adapter) => {
  let redis: RedisServer;
  let probe: Redis;
  let a: RunningApp;
  let b: RunningApp;
  const late: RunningApp[] = [];
  let onB: OpenStream;

  const replica = async () => {
    const started = await startApp(adapter, { imports: [RedisEventsReplicaModule.forRoot({ url: redis.url })] });
    // On every replica, at startup: the matchers runtime registrations may name.
    started.app
      .get(McpEventTypes)
      .provideMatcher('same-branch', (build: { branch: string }, filter: { branch?: string }) =>
        filter.branch === undefined || build.branch === filter.branch ? build : undefined,
      );
    return started;
  };
  const listChanges = () => onB.messages.filter((message) => message.method === LIST_CHANGED).length;

  beforeAll(async () => {
    redis = await startRedisServer();
    probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    probe.on('error', () => undefined);
    await probe.connect();
    a = await replica();
    b = await replica();
    onB = await listen(b.mcpUrl, 'listen-b', { eventsListChanged: true });
    await onB.nextFrames(1); // the acknowledgement: B's stream is open
  });

  afterAll(async () => {
    onB?.close();
    await onB?.ended;
    for (const app of [a, b, ...late]) if (app) await closeReplica(app);
    probe?.disconnect();
    await redis?.dispose();
  });

  it('a type registered on A is listed by B after the change notification, with the same descriptor', async () => {
    const declared = await eventNames(b);
    expect(declared).toEqual(await eventNames(a));
    await a.app.get(McpEventTypes).register(BUILD_FINISHED, 'same-branch');
    await onB.until(() => listChanges() === 1, 5_000, 'the registration on A to reach B');
    expect(await eventNames(b)).toEqual([...declared, 'build.finished']);
    expect(await descriptorOf(b, 'build.finished')).toEqual(await descriptorOf(a, 'build.finished'));
    // The record in Redis is plain JSON: the options and the matcher's name.
    const record = JSON.parse((await probe.hget('nest-mcp:registry', 'events:build.finished'))!);
    expect(record).toEqual({ registered: { type: 'eventType', options: BUILD_FINISHED, handler: 'same-branch' } });
  });

  it('a replica started later lists the runtime type too, in the same order', async () => {
    const c = await replica();
    late.push(c);
    expect(await eventNames(c)).toEqual(await eventNames(a));
    expect(await eventNames(c)).toContain('build.finished');
  });

  it('removing it on A removes it on B, with one notification per change (B does not echo what it applied)', async () => {
    const types = a.app.get(McpEventTypes);
    expect(types.remove('build.finished')).toBe(true);
    await types.settled();
    await onB.until(() => listChanges() === 2, 5_000, 'the removal on A to reach B');
    expect(await eventNames(b)).not.toContain('build.finished');
    expect(await probe.hexists('nest-mcp:registry', 'events:build.finished')).toBe(0);
    // A registration on B is a barrier: its notification follows every earlier one on B's stream.
    await b.app.get(McpEventTypes).register({ name: 'barrier.type' });
    await onB.until(() => listChanges() === 3, 5_000, 'the barrier registered on B');
    expect(onB.messages.filter((message) => message.method === LIST_CHANGED)).toHaveLength(3);
    expect(await eventNames(a)).toContain('barrier.type');
  });

  it('a declared type removed on A is switched off on B and on a later replica; enable brings it back everywhere', async () => {
    const types = a.app.get(McpEventTypes);
    expect(await eventNames(b)).toContain('deploy.finished');
    expect(types.remove('deploy.finished')).toBe(true);
    await types.settled();
    expect(JSON.parse((await probe.hget('nest-mcp:registry', 'events:deploy.finished'))!)).toEqual({ disabled: true });
    expect(await eventNames(b)).not.toContain('deploy.finished');
    const d = await replica();
    late.push(d);
    expect(await eventNames(d)).not.toContain('deploy.finished');

    expect(types.enable('deploy.finished')).toBe(true);
    await types.settled();
    for (const app of [a, b, d]) expect(await eventNames(app)).toEqual(await eventNames(late[0]));
    expect(await eventNames(b)).toContain('deploy.finished');
  });

  it('validates a record on read: a malformed or misnamed event type in Redis is left out, the others are listed', async () => {
    // Written as another replica (or an attacker with Redis access) could: through the state, so the token moves on.
    const state = a.app.get(McpRedis).registryState;
    await state.commit('events:bad.delivery', {
      registered: { type: 'eventType', options: { name: 'bad.delivery', delivery: ['pigeon'] }, handler: '' },
    });
    await state.commit('events:misnamed', {
      registered: { type: 'eventType', options: { name: 'other' }, handler: '' },
    });
    await state.commit('events:good.type', {
      registered: { type: 'eventType', options: { name: 'good.type' }, handler: '' },
    });
    await probe.hset('nest-mcp:registry', 'events:garbage', '{"registered":{"type":"eventType"}}');
    const names = await eventNames(b);
    expect(names).toContain('good.type');
    expect(names).not.toContain('bad.delivery');
    expect(names).not.toContain('misnamed');
    expect(names).not.toContain('other');
    for (const key of ['events:bad.delivery', 'events:misnamed', 'events:good.type', 'events:garbage'])
      await state.commit(key, undefined);
    expect(await eventNames(b)).not.toContain('good.type');
  });

  it('refuses a matcher given as a function, and options that are not plain JSON', () => {
    const types = a.app.get(McpEventTypes);
    expect(() => types.register({ name: 'closure.type' }, () => true)).toThrow(
      /shared registryState \(several replicas\) the matcher must be the name of one every replica provides/,
    );
    expect(() => types.register({ name: 'authorized.type', authorize: () => true })).toThrow(/must be plain JSON/);
    expect(() => types.register({ name: 'unknown.matcher' }, 'not-provided')).toThrow(
      /no matcher is provided under the name "not-provided"/,
    );
  });
});
