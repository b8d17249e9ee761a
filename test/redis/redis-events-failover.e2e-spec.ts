import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { McpWebhookReceiver } from 'nest-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../support/app.factory.js';
import { eventsPost, resultOf } from '../support/events.util.js';
import { forkFixtureServer, type ForkedServer } from '../support/forked-server.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { sleep, until, untilAsync } from '../support/wait.util.js';

const FIXTURE = 'test/fixtures/redis-events-replica.fixture.ts';
/** The webhook retry base of the replicas: long enough to kill a replica while its retry is pending. */
const RETRY_BASE_MS = 800;

/**
 * The events extension on Redis with replicas as child processes (a replica killed with SIGKILL really dies), on
 * both adapters: a poll cursor taken on A resumes on C with nothing lost or repeated; a receiver that fails three
 * times gets the event acknowledged once, every attempt with the same `webhook-id`; and the retry of a replica killed
 * with SIGKILL while it was pending is made by another replica.
 */
describe.each(ADAPTERS)('events on Redis: replicas as processes (%s)', (adapter) => {
  let redis: RedisServer;
  let probe: Redis;
  let queue: Queue;
  let queueConnection: Redis;
  let replicas: ForkedServer[] = [];
  const receivers: McpWebhookReceiver[] = [];
  const prefix = `events-failover-${adapter}`;

  const live = () => replicas.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null);
  const receiver = async () => {
    const started = await McpWebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  /** Emits `incident.opened` from `replica` through its `emit_incident` tool. */
  async function emitFrom(replica: ForkedServer, id: string, service: string, eventId: string): Promise<void> {
    const response = await mcpPost(replica.url, {
      method: 'tools/call',
      params: { name: 'emit_incident', arguments: { id, service, eventId } },
      meta: requestMeta(),
    });
    expect(response.text).toContain(`emitted ${eventId}`);
  }
  /**
   * The pid of the process whose BullMQ worker made attempt `attempt` of a delivery, once that job completed (its
   * retry, if it failed, is then queued in Redis).
   */
  async function attemptMadeBy(eventId: string, attempt: number): Promise<number> {
    let pid: number | undefined;
    await untilAsync(
      async () => {
        const jobs = await queue.getJobs(['completed'], 0, 200);
        const job = jobs.find(
          (candidate) =>
            candidate.data?.webhookId === eventId && candidate.data?.attempt === attempt && candidate.processedBy,
        );
        pid = job ? Number(job.processedBy!.split(':').at(-1)) : undefined;
        return pid !== undefined;
      },
      5_000,
      `the job of attempt ${attempt} of ${eventId}`,
    ).catch(async (error: Error) => {
      const jobs = await queue.getJobs(['completed', 'active', 'delayed', 'failed', 'wait'], 0, 200);
      throw new Error(
        `${error.message}: ${JSON.stringify(jobs.map((job) => [job.data?.webhookId, job.data?.attempt, job.processedBy, job.finishedOn]))}`,
      );
    });
    return pid!;
  }

  beforeAll(async () => {
    redis = await startRedisServer({ aof: true });
    probe = new Redis(redis.url, { maxRetriesPerRequest: null });
    probe.on('error', () => undefined);
    queueConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
    queueConnection.on('error', () => undefined);
    queue = new Queue('webhooks', { connection: queueConnection, prefix });
    replicas = await Promise.all(
      [0, 1, 2].map(() => forkFixtureServer(FIXTURE, [redis.url, prefix, adapter, String(RETRY_BASE_MS)])),
    );
  }, 90_000);
  afterEach(async () => {
    for (const started of receivers.splice(0)) await started.close();
  });
  afterAll(async () => {
    for (const replica of replicas) replica.kill();
    await queue?.close();
    queueConnection?.disconnect();
    probe?.disconnect();
    await redis?.dispose();
  });

  it('E-16, E-50: a poll cursor taken on replica A resumes on replica C: events emitted on B and C, nothing lost or repeated', async () => {
    const [a, b, c] = replicas;
    const args = { service: 'across' };
    const start = resultOf(
      await eventsPost(a.url, 'events/poll', { name: 'incident.opened', arguments: args, cursor: null }),
    );
    for (const [index, replica] of [b, c, b, c, b].entries())
      await emitFrom(replica, `X-${index}`, 'across', `evt_across_${index}`);
    await emitFrom(a, 'X-other', 'elsewhere', 'evt_elsewhere');
    const first = resultOf(
      await eventsPost(c.url, 'events/poll', {
        name: 'incident.opened',
        arguments: args,
        cursor: start.cursor,
        maxEvents: 2,
      }),
    );
    expect(first).toMatchObject({ truncated: false, hasMore: true });
    const second = resultOf(
      await eventsPost(b.url, 'events/poll', { name: 'incident.opened', arguments: args, cursor: first.cursor }),
    );
    expect(second).toMatchObject({ truncated: false, hasMore: false });
    const ids = [...first.events, ...second.events].map((event: { eventId: string }) => event.eventId);
    expect(ids).toEqual([0, 1, 2, 3, 4].map((index) => `evt_across_${index}`));
    const after = resultOf(
      await eventsPost(a.url, 'events/poll', { name: 'incident.opened', arguments: args, cursor: second.cursor }),
    );
    expect(after.events).toEqual([]);
  });

  it('E-42, E-43: a receiver answering 500 three times then 200 gets the event acknowledged once; every attempt has the same webhook-id and body', async () => {
    const target = await receiver();
    resultOf(
      await eventsPost(
        replicas[1].url,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service: 'thrice' },
          delivery: { url: target.url, secret: target.secret },
        },
        'alice',
      ),
    );
    target.respondWith(500, 500, 500);
    await emitFrom(replicas[0], 'T-1', 'thrice', 'evt_thrice');
    await until(() => target.events.some((event) => event.status === 200), 20_000, 'the acknowledged attempt');
    await sleep(2 * RETRY_BASE_MS);
    expect(target.events.map((event) => event.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(target.events.map((event) => event.headers['webhook-id']))).toEqual(new Set(['evt_thrice']));
    expect(new Set(target.events.map((event) => event.body)).size).toBe(1);
    expect(target.events.every((event) => event.verified)).toBe(true);
  }, 30_000);

  it('kill -9 of the replica that made a failed attempt: its pending retry is made by another replica, once', async () => {
    const target = await receiver();
    const subscriber = live()[0];
    resultOf(
      await eventsPost(
        subscriber.url,
        'events/subscribe',
        {
          name: 'incident.opened',
          arguments: { service: 'orphan' },
          delivery: { url: target.url, secret: target.secret },
        },
        'alice',
      ),
    );
    target.respondWith(500);
    await emitFrom(subscriber, 'O-1', 'orphan', 'evt_orphan');
    await until(() => target.events.length === 1, 5_000, 'the first (failed) attempt');
    const owner = await attemptMadeBy('evt_orphan', 1);
    const victim = replicas.find((replica) => replica.child.pid === owner)!;
    expect(victim, 'the attempt was made by one of the replicas').toBeDefined();
    // Its retry is a delayed job in Redis now; the replica that queued it dies before it is due.
    const exited = new Promise((resolve) => victim.child.once('exit', resolve));
    victim.kill();
    await exited;
    expect(target.events.length, 'the retry was not due before the kill').toBe(1);
    await until(() => target.events.length >= 2, 15_000, 'the retry from another replica');
    const retriedBy = await attemptMadeBy('evt_orphan', 2);
    expect(retriedBy).not.toBe(owner);
    expect(live().map((replica) => replica.child.pid)).toContain(retriedBy);
    await sleep(2 * RETRY_BASE_MS);
    expect(target.events.map((event) => event.status)).toEqual([500, 200]);
    expect(target.events.map((event) => event.headers['webhook-id'])).toEqual(['evt_orphan', 'evt_orphan']);
    expect(target.events[1].body).toBe(target.events[0].body);
    expect(target.events[1].verified).toBe(true);
  }, 30_000);
});
