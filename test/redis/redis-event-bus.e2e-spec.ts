import type { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpPublisher, McpRegistry } from 'nest-mcp';
import { RedisEventBus } from 'nest-mcp-redis';
import { RedisReplicaModule } from '../fixtures/redis-bus.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { closeReplica, replicasReconnected } from '../support/redis-replicas.js';
import { sleep, until } from '../support/wait.util.js';

/**
 * The Redis event bus between two replicas in this process (each `McpRedisModule.forRoot` + `McpModule` through
 * `McpRedis.serverOptions`, on a real redis-server), listened to over HTTP with the official client: a publish on one
 * replica reaches listen streams on both, exactly once each; an audience holds across replicas; runtime
 * registration on one replica reaches listeners on the other; a malformed message on the channel is dropped; and
 * across a Redis restart a replica's own listeners keep hearing its publishes, publishing never hangs, and the other
 * replica's listeners are told to resync, then hear new publishes again.
 */

const TOOLS_CHANGED = 'notifications/tools/list_changed';
const UPDATED = 'notifications/resources/updated';

/** An official client with an open listen stream, and what it heard (`method` or `method uri`). */
interface Listener {
  client: Client;
  seen: string[];
}

/** Connects the official client to `url` (as `user`, when given) and opens `subscriptions/listen` with `filter`. */
async function listenOn(
  url: URL,
  filter: { toolsListChanged?: boolean; resourceSubscriptions?: string[] },
  user?: string,
): Promise<Listener> {
  const fetchAs: typeof fetch | undefined = user
    ? (input, init) =>
        fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-user': user } })
    : undefined;
  const client = await connectClient(url, { fetch: fetchAs });
  const seen: string[] = [];
  client.setNotificationHandler(TOOLS_CHANGED, () => void seen.push(TOOLS_CHANGED));
  client.setNotificationHandler(UPDATED, (notification) => void seen.push(`${UPDATED} ${notification.params.uri}`));
  const subscription = await client.listen(filter);
  expect(subscription.honoredFilter).toEqual(filter);
  return { client, seen };
}

const count = (listener: Listener, what: string) => listener.seen.filter((entry) => entry === what).length;

describe.each(ADAPTERS)('Redis event bus across two replicas (%s)', (adapter) => {
  let redis: RedisServer;
  let probe: Redis;
  let a: RunningApp;
  let b: RunningApp;
  const clients: Client[] = [];
  const channel = 'nest-mcp:events';

  /** Listens and remembers the client, closed in afterAll. */
  async function listener(app: RunningApp, filter: Parameters<typeof listenOn>[1], user?: string): Promise<Listener> {
    const opened = await listenOn(app.mcpUrl, filter, user);
    clients.push(opened.client);
    return opened;
  }

  /** Both replicas' subscribers hold the channel (Redis says so). */
  async function bothSubscribed(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [, subscribers] = (await probe.pubsub('NUMSUB', channel)) as [string, number];
      if (Number(subscribers) >= 2) return;
      if (Date.now() > deadline)
        throw new Error(`the replicas did not subscribe to ${channel} (${subscribers} subscribers)`);
      await sleep(20);
    }
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    probe.on('error', () => undefined);
    await probe.connect();
    a = await startApp(adapter, { imports: [RedisReplicaModule.serve({ url: redis.url, commandTimeoutMs: 1_000 })] });
    b = await startApp(adapter, { imports: [RedisReplicaModule.serve({ url: redis.url, commandTimeoutMs: 1_000 })] });
    await bothSubscribed();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    for (const app of [a, b]) if (app) await closeReplica(app);
    probe?.disconnect();
    await redis?.dispose();
  });

  it('McpPublisher.resourceUpdated on A reaches a listen stream on B and one on A, exactly once each', async () => {
    const onA = await listener(a, { toolsListChanged: true, resourceSubscriptions: ['config://app'] });
    const onB = await listener(b, { toolsListChanged: true, resourceSubscriptions: ['config://app'] });
    await a.app.get(McpPublisher).resourceUpdated('config://app');
    await until(() => count(onB, `${UPDATED} config://app`) === 1, 5_000, 'the update published on A to reach B');
    // B publishes only after Redis delivered A's message to every subscriber: A's echo of it, if it were not skipped,
    // would reach A before this barrier does.
    await b.app.get(McpPublisher).toolsListChanged();
    await until(
      () => count(onA, TOOLS_CHANGED) === 1 && count(onB, TOOLS_CHANGED) === 1,
      5_000,
      'the barrier published on B',
    );
    expect(onA.seen).toEqual([`${UPDATED} config://app`, TOOLS_CHANGED]);
    expect(onB.seen).toEqual([`${UPDATED} config://app`, TOOLS_CHANGED]);
  });

  it('an audience holds across replicas: only the listed principal on B hears the update', async () => {
    const alice = await listener(b, { toolsListChanged: true, resourceSubscriptions: ['config://app'] }, 'alice');
    const bob = await listener(b, { toolsListChanged: true, resourceSubscriptions: ['config://app'] }, 'bob');
    await a.app.get(McpPublisher).resourceUpdated('config://app', { audience: { principals: ['alice'] } });
    await a.app.get(McpPublisher).toolsListChanged();
    await until(
      () => count(alice, TOOLS_CHANGED) === 1 && count(bob, TOOLS_CHANGED) === 1,
      5_000,
      'the barrier on both streams',
    );
    expect(alice.seen).toEqual([`${UPDATED} config://app`, TOOLS_CHANGED]);
    expect(bob.seen).toEqual([TOOLS_CHANGED]);
  });

  it('runtime registration on B produces tools/list_changed on a stream on A, and A lists the tool then', async () => {
    const onA = await listener(a, { toolsListChanged: true });
    // With the shared registry state (serverOptions), a runtime handler is a name every replica provides.
    for (const replica of [a, b]) replica.app.get(McpRegistry).provideHandler('answer-ok', () => 'ok');
    await b.app
      .get(McpRegistry)
      .registerTool({ name: 'added_on_b', description: 'Registered at run time on B' }, 'answer-ok');
    try {
      await until(() => count(onA, TOOLS_CHANGED) === 1, 5_000, 'the list change of B to reach A');
      expect(await a.app.get(McpRegistry).has('tools', 'added_on_b')).toBe(true);
    } finally {
      b.app.get(McpRegistry).removeTool('added_on_b');
      await b.app.get(McpRegistry).settled();
    }
    await until(() => count(onA, TOOLS_CHANGED) === 2, 5_000, 'the removal on B to reach A');
    expect(await a.app.get(McpRegistry).has('tools', 'added_on_b')).toBe(false);
    // Exactly one notification per change: A applied B's changes without announcing them again.
    await sleep(200);
    expect(count(onA, TOOLS_CHANGED)).toBe(2);
  });

  it('refuses a runtime handler given as a function, which could not reach the other replica', () => {
    expect(() => b.app.get(McpRegistry).registerTool({ name: 'closure_tool' }, () => 'ok')).toThrow(
      /shared registryState \(several replicas\) a runtime handler must be the name of a handler every replica provides/,
    );
  });

  it('drops a malformed message on the channel and keeps delivering well-formed ones', async () => {
    const onB = await listener(b, { resourceSubscriptions: ['config://app'] });
    const bus = b.app.get(RedisEventBus);
    const dropped = bus.droppedMessages;
    const garbage = [
      'not json',
      JSON.stringify({ origin: 'x', event: { type: 'resourceUpdated', uri: 42 } }),
      JSON.stringify({
        origin: 'x',
        event: { type: 'resourceUpdated', uri: 'config://app', audience: { principals: 'everyone' } },
      }),
      JSON.stringify({ origin: 'x', event: { type: 'dropDatabase' } }),
    ];
    for (const message of garbage) await probe.publish(channel, message);
    await probe.publish(
      channel,
      JSON.stringify({ origin: 'elsewhere', event: { type: 'resourceUpdated', uri: 'config://app' } }),
    );
    await until(() => count(onB, `${UPDATED} config://app`) === 1, 5_000, 'the well-formed message');
    expect(bus.droppedMessages - dropped).toBe(garbage.length);
    expect(onB.seen).toEqual([`${UPDATED} config://app`]);
  });

  it('drops a resourceUpdated whose URI McpPublisher would refuse (control characters, spaces) and keeps delivering (#24)', async () => {
    // A listener of config://app hears its sub-resources: these would reach it, escape sequences and all.
    const onB = await listener(b, { resourceSubscriptions: ['config://app'] });
    const bus = b.app.get(RedisEventBus);
    const dropped = bus.droppedMessages;
    const hostile = [
      'config://app/\u001b]52;c;aGVsbG8=\u0007',
      'config://app/\u0000nul',
      'config://app/line\r\nbreak',
      'config://app/with space',
    ];
    for (const uri of hostile)
      await probe.publish(channel, JSON.stringify({ origin: 'elsewhere', event: { type: 'resourceUpdated', uri } }));
    await probe.publish(
      channel,
      JSON.stringify({ origin: 'elsewhere', event: { type: 'resourceUpdated', uri: 'config://app/fine' } }),
    );
    await until(() => count(onB, `${UPDATED} config://app/fine`) === 1, 5_000, 'the well-formed message');
    expect(bus.droppedMessages - dropped).toBe(hostile.length);
    expect(onB.seen).toEqual([`${UPDATED} config://app/fine`]);
    // The publisher refuses the same URIs before they reach the bus.
    for (const uri of hostile) await expect(a.app.get(McpPublisher).resourceUpdated(uri)).rejects.toThrow(TypeError);
  });

  it('Redis restarted: A keeps hearing its own publishes and never hangs; B is told to resync, then hears publishes again', async () => {
    const filter = { toolsListChanged: true, resourceSubscriptions: ['config://app', 'file:///project/dir'] };
    const onA = await listener(a, filter);
    const onB = await listener(b, filter);
    const caller = await connectClient(a.mcpUrl);
    clients.push(caller);

    await redis.stop();
    // Published while Redis is down: the call answers, and A's own listener hears it.
    const during = await caller.callTool({ name: 'touch', arguments: { uri: 'file:///project/dir/during.txt' } });
    expect(during.content).toEqual([{ type: 'text', text: 'touched file:///project/dir/during.txt' }]);
    await until(
      () => count(onA, `${UPDATED} file:///project/dir/during.txt`) === 1,
      5_000,
      'A to hear its own publish',
    );

    await redis.start();
    // B's subscriber is back: everything B's stream follows is reported as changed.
    await until(
      () =>
        count(onB, TOOLS_CHANGED) >= 1 &&
        count(onB, `${UPDATED} config://app`) >= 1 &&
        count(onB, `${UPDATED} file:///project/dir`) >= 1,
      15_000,
      `the resync on B (heard: ${JSON.stringify(onB.seen)})`,
    );
    // New publishes on A reach B again, once A's command connection is back too.
    const after = `${UPDATED} file:///project/dir/after.txt`;
    const deadline = Date.now() + 15_000;
    while (count(onB, after) === 0) {
      if (Date.now() > deadline)
        throw new Error(`a publish on A after the restart never reached B (heard: ${JSON.stringify(onB.seen)})`);
      await caller.callTool({ name: 'touch', arguments: { uri: 'file:///project/dir/after.txt' } });
      await sleep(100);
    }
    await bothSubscribed();
    await replicasReconnected([a, b]);
  });
});
