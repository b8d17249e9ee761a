import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
  type V2RequestFraming,
} from '@modelcontextprotocol/ext-tasks/client';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoCluster, type Replica, startCluster } from '../support/cluster.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { listen, type OpenStream } from '../support/sse-stream.reader.js';
import { sleep, until } from '../support/wait.util.js';

/**
 * nest-mcp-redis proven with real processes: redis-server (AOF on), three replicas of the demo (apps/demo, on Redis
 * with REDIS_URL and one MCP_STATE_KEYS) and nginx in front of them as a round-robin balancer without affinity. Clients
 * go through the balancer unless a test needs one replica in particular; `X-Upstream` (added by nginx) and BullMQ's
 * `job.processedBy` (`<host>:<pid>`) tell which replica did what. Faults are real: SIGKILL of a replica, Redis stopped
 * and started again.
 */

const PROTOCOL = '2026-07-28';
const clientInfo = { name: 'nest-mcp-cluster-e2e', version: '1.0.0' };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const FORM = { elicitation: { form: {} } };
const ADMIN = { 'x-ops-role': 'admin' };
const SUB = 'io.modelcontextprotocol/subscriptionId';
/**
 * The demo's task queue: McpRedisModule's BullMQ queue `tasks`, under the key prefix of its named server `ops-console`
 * (`nest-mcp:server:ops-console`, `McpRedis.forServer`).
 */
const QUEUE = { name: 'tasks', prefix: 'nest-mcp:server:ops-console' };
/** A step of incident_report in these tests: the first round (two steps, then the question) lasts about 2 s. */
const STEP_MS = 1_000;

/** A fetch that adds `headers` and records, per request, the JSON-RPC method and the replica nginx chose. */
function recordingFetch(headers: Record<string, string> = {}) {
  const calls: Array<{ method: string; upstream: string | null; status: number }> = [];
  const fetchWith: typeof fetch = async (input, init) => {
    const response = await fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers },
    });
    const method = new Headers(init?.headers).get('mcp-method') ?? init?.method ?? 'GET';
    calls.push({ method, upstream: response.headers.get('x-upstream'), status: response.status });
    return response;
  };
  return { fetch: fetchWith, calls };
}

/** The official client through `url`, pinned to 2026-07-28. */
async function officialClient(
  url: URL,
  capabilities: Record<string, unknown>,
  fetchWith?: typeof fetch,
): Promise<Client> {
  const client = new Client(clientInfo, { capabilities, versionNegotiation: { mode: { pin: PROTOCOL } } });
  await client.connect(new StreamableHTTPClientTransport(url, fetchWith ? { fetch: fetchWith } : undefined));
  return client;
}

/** The official client with an ext-tasks session (polls `tasks/get`, answers with `tasks/update`) through `url`. */
async function taskSession(url: URL, answer: Record<string, unknown>) {
  const capabilities = { ...FORM, ...TASKS };
  const client = await officialClient(url, capabilities);
  const framing: V2RequestFraming = { protocolVersion: PROTOCOL, clientInfo, clientCapabilities: capabilities };
  const asked: string[] = [];
  const rawDispatch: RawClientDispatch = async (request, options) => {
    const { method, params = {} } = request as { method: string; params?: Record<string, unknown> };
    const response = await mcpPost(url, {
      method,
      params: Object.fromEntries(Object.entries(params).filter(([key]) => key !== '_meta')),
      meta: {
        ...requestMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
        ...(params._meta as object),
      },
      headers: {
        ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}),
        ...Object.fromEntries(
          Object.entries(options?.context?.headers ?? {}).map(([key, value]) => [key.toLowerCase(), String(value)]),
        ),
      },
    });
    const message = response.json as { result?: never; error?: never };
    return message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result! };
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: await createTaskSessionEndpointId('nest-mcp-cluster-e2e', { url: url.href }),
    rawDispatch,
    v2RequestFraming: framing,
    onInputRequest: createApplicationInputHandler({
      elicitation: async (request) => {
        asked.push(String(request.params.message ?? ''));
        return { action: 'accept', content: answer as never };
      },
      sampling: async () => {
        throw new Error('no sampling in these tests');
      },
      roots: async () => ({ roots: [] }),
    }),
  });
  return { session, asked, close: async () => (await session.close(), await client.close()) };
}

/** A raw 2026-07-28 POST with the given client capabilities (and the `Mcp-Name` tasks/* need). */
function post(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return mcpPost(url, {
    method,
    params,
    meta: requestMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
    headers: { ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}), ...headers },
  });
}

function resultOf(response: RawResponse): Record<string, any> {
  const body = response.json as { result?: Record<string, any>; error?: unknown };
  if (!body?.result) throw new Error(`expected a result, got ${response.status}: ${response.text}`);
  return body.result;
}

/** Polls `tasks/get` through `url` until the task's status is one of `statuses`. */
async function taskUntil(
  url: URL,
  taskId: string,
  statuses: string[],
  timeoutMs: number,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const response = await post(url, 'tasks/get', { taskId }, { ...FORM, ...TASKS });
    last = response.json;
    const result = (response.json as { result?: Record<string, any> })?.result;
    if (result && statuses.includes(result.status)) return result;
    await sleep(100);
  }
  throw new Error(
    `task ${taskId} did not reach ${statuses.join('/')} within ${timeoutMs} ms; last: ${JSON.stringify(last)}`,
  );
}

/** How many times a replica wrote the report of `taskId` (the demo logs it when the handler finishes). */
function reportsWritten(cluster: DemoCluster, taskId: string): Array<{ replica: number }> {
  return cluster.replicas.flatMap((replica) =>
    replica
      .output()
      .split('\n')
      .filter((line) => line.includes(`Incident report ${taskId} written`))
      .map(() => ({ replica: replica.index })),
  );
}

/** Opens a listen stream and waits for its acknowledgement. */
/**
 * The last `/health` status of each replica once all answered 200 (Redis and the task workers reconnected), or
 * when `timeoutMs` passed.
 */
async function healthOf(replicas: readonly Replica[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await Promise.all(
      replicas.map(async (replica) => (await fetch(`${replica.baseUrl}/health`)).status),
    );
    if (statuses.every((status) => status === 200) || Date.now() > deadline) return statuses;
    await sleep(200);
  }
}

async function openListen(url: URL, id: string, notifications: Record<string, unknown>): Promise<OpenStream> {
  const stream = await listen(url, id, notifications);
  expect(stream.status, `listen on ${url.href}`).toBe(200);
  const [ack] = await stream.nextFrames(1, 10_000);
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  return stream;
}

/** The frames of `stream` after its acknowledgement whose method is `method` (and, for updates, whose uri is `uri`). */
function framesOf(stream: OpenStream, method: string, uri?: string) {
  return stream.messages.filter(
    (message) => message.method === method && (uri === undefined || message.params?.uri === uri),
  );
}

for (const adapter of ['express', 'fastify'] as const) {
  describe(`a cluster of three demo replicas on Redis behind nginx (${adapter})`, { timeout: 90_000 }, () => {
    let cluster: DemoCluster;
    let queue: Queue;
    const streams: OpenStream[] = [];

    /** The replica that runs (or ran) a round of `taskId`, from BullMQ's `job.processedBy` (`<host>:<pid>`). */
    async function workerOf(
      taskId: string,
      states: Array<'active' | 'completed'>,
      timeoutMs: number,
    ): Promise<Replica> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const jobs = await queue.getJobs(states);
        const job = jobs.find((candidate) => candidate?.data?.taskId === taskId && candidate.processedBy);
        if (job) {
          const pid = Number(job.processedBy!.split(':').pop());
          const replica = cluster.replicaByPid(pid);
          if (!replica)
            throw new Error(`job ${job.id} was processed by ${job.processedBy}, which is no replica of this cluster`);
          return replica;
        }
        await sleep(20);
      }
      throw new Error(`no ${states.join('/')} job of task ${taskId} within ${timeoutMs} ms`);
    }

    const alive = () => cluster.replicas.filter((replica) => replica.alive());

    beforeAll(async () => {
      cluster = await startCluster({ adapter, taskLockMs: 2_000, incidentStepMs: STEP_MS });
      queue = new Queue(QUEUE.name, {
        prefix: QUEUE.prefix,
        connection: { host: '127.0.0.1', port: cluster.redis.port, maxRetriesPerRequest: null },
      });
      queue.on('error', () => undefined);
    }, 120_000);
    afterAll(async () => {
      for (const stream of streams) stream.close();
      await queue?.close().catch(() => undefined);
      await cluster?.dispose();
    }, 60_000);

    it('completes MRTR rounds whose retry lands on another replica, and accepts each requestState once across replicas', async () => {
      // Through the balancer with the official client: it answers the form and retries; nginx sends the retry on.
      const recorder = recordingFetch(ADMIN);
      const client = await officialClient(cluster.adminUrl, FORM, recorder.fetch);
      client.setRequestHandler('elicitation/create', async () => ({
        action: 'accept',
        content: { confirmName: 'auth-gateway' },
      }));
      const result = await client.callTool({ name: 'decommission_service', arguments: { name: 'auth-gateway' } });
      await client.close();
      expect(result.content).toEqual([{ type: 'text', text: 'Decommissioned auth-gateway.' }]);
      const rounds = recorder.calls.filter((call) => call.method === 'tools/call');
      expect(rounds.length).toBe(2);
      expect(rounds.every((round) => round.upstream && cluster.replicaByAddress(round.upstream))).toBe(true);
      expect(rounds[0].upstream, 'round robin sends the retry to another replica').not.toBe(rounds[1].upstream);
      // nginx writes the access log line after the response: wait for it rather than race it.
      await until(
        () => cluster.nginx.accessLog().includes(`upstream=${rounds[1].upstream}`),
        5_000,
        'the retry in the access log',
      );
      expect(cluster.nginx.accessLog()).toContain(`upstream=${rounds[1].upstream}`);

      // By hand: the first round on replica 0, its retry on replica 1, the same retry again on replica 2.
      const [a, b, c] = cluster.replicas;
      const first = resultOf(
        await post(
          a.adminUrl,
          'tools/call',
          { name: 'decommission_service', arguments: { name: 'search-indexer' } },
          FORM,
          ADMIN,
        ),
      );
      expect(first.resultType).toBe('input_required');
      const retry = {
        name: 'decommission_service',
        arguments: { name: 'search-indexer' },
        inputResponses: { confirm: { action: 'accept', content: { confirmName: 'search-indexer' } } },
        requestState: first.requestState,
      };
      const done = resultOf(await post(b.adminUrl, 'tools/call', retry, FORM, ADMIN));
      expect(done.content).toEqual([{ type: 'text', text: 'Decommissioned search-indexer.' }]);
      const replayed = await post(c.adminUrl, 'tools/call', retry, FORM, ADMIN);
      expect((replayed.json as { error?: { code: number; message: string } }).error).toMatchObject({ code: -32602 });
      expect((replayed.json as { error: { message: string } }).error.message).toMatch(/already used/i);
    });

    it('delivers a resource update published on replica A to a listener connected to replica C (and one behind the balancer)', async () => {
      const [a, , c] = cluster.replicas;
      const uri = 'ops://services/checkout-api';
      const onC = await openListen(c.mcpUrl, 'on-c', { resourceSubscriptions: [uri] });
      const balanced = await openListen(cluster.mcpUrl, 'balanced', { resourceSubscriptions: [uri] });
      streams.push(onC, balanced);
      const scaled = resultOf(
        await post(a.mcpUrl, 'tools/call', { name: 'scale_service', arguments: { name: 'checkout-api', replicas: 9 } }),
      );
      expect(scaled.isError).toBeFalsy();
      for (const stream of [onC, balanced]) {
        const update = await stream.waitFor(
          (message) => message.method === 'notifications/resources/updated' && message.params?.uri === uri,
          `${uri} updated`,
          10_000,
        );
        expect(update.params?._meta?.[SUB]).toBe(stream === onC ? 'on-c' : 'balanced');
        expect(stream.problems).toEqual([]);
      }
      onC.close();
      balanced.close();
    });

    it('tells listeners on every replica that the tool list changed when replica B registers a tool at run time', async () => {
      const [, b] = cluster.replicas;
      const listeners = await Promise.all(
        cluster.replicas.map((replica) =>
          openListen(replica.mcpUrl, `tools-${replica.index}`, { toolsListChanged: true }),
        ),
      );
      streams.push(...listeners);
      const flag = resultOf(
        await post(
          b.adminUrl,
          'tools/call',
          { name: 'set_feature_flag', arguments: { flag: 'cost-insights', enabled: true } },
          {},
          ADMIN,
        ),
      );
      expect(flag.content).toEqual([{ type: 'text', text: 'cost-insights is now on.' }]);
      for (const stream of listeners) {
        await stream.waitFor(
          (message) => message.method === 'notifications/tools/list_changed',
          'tools/list_changed',
          10_000,
        );
        expect(stream.problems).toEqual([]);
        stream.close();
      }
      // The registration is the cluster's (registryState): every replica lists the tool (test/redis/cluster-topology.e2e-spec.ts).
      for (const replica of cluster.replicas) {
        const tools = resultOf(await post(replica.mcpUrl, 'tools/list', {}));
        expect(tools.tools.map((tool: { name: string }) => tool.name)).toContain('estimate_costs');
      }
    });

    it('lets an answer sent with tasks/update to a replica that did not run the task reach it', async () => {
      const created = resultOf(
        await post(
          cluster.mcpUrl,
          'tools/call',
          { name: 'incident_report', arguments: { service: 'payments-worker' } },
          { ...FORM, ...TASKS },
        ),
      );
      expect(created.resultType).toBe('task');
      const taskId = created.taskId as string;
      const waiting = await taskUntil(cluster.mcpUrl, taskId, ['input_required'], 20_000);
      const [key] = Object.keys(waiting.inputRequests ?? {});
      expect(key).toBeDefined();
      const ranOn = await workerOf(taskId, ['completed', 'active'], 5_000);
      const other = cluster.replicas.find((replica) => replica !== ranOn)!;
      const updated = await post(
        other.mcpUrl,
        'tasks/update',
        { taskId, inputResponses: { [key]: { action: 'accept', content: { includeLogs: true } } } },
        { ...FORM, ...TASKS },
      );
      expect(updated.status, updated.text).toBe(200);
      const done = await taskUntil(cluster.mcpUrl, taskId, ['completed', 'failed', 'cancelled'], 30_000);
      expect(done.status, JSON.stringify(done)).toBe('completed');
      expect(done.result.content[0].text).toContain('Incident report: payments-worker');
      expect(done.result.content[0].text).toContain('Recent logs:');
      expect(reportsWritten(cluster, taskId)).toHaveLength(1);
    });

    it('completes a task whose replica is killed with SIGKILL mid-run on another replica; the client polls through the balancer', async () => {
      const { session, asked, close } = await taskSession(cluster.mcpUrl, { includeLogs: false });
      try {
        const execution = await session.callTool(
          'incident_report',
          { service: 'checkout-api' },
          { task: { preference: 'require' } },
        );
        expect(execution.kind).toBe('task');
        const taskId = execution.handle!.taskId;
        const victim = await workerOf(taskId, ['active'], 10_000);
        await victim.kill9();
        const { outcome } = await execution.settle();
        expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
        expect(resultFromTaskOutcome(outcome)).toMatchObject({
          content: [{ type: 'text', text: expect.stringContaining('Incident report: checkout-api') }],
        });
        expect(asked).toEqual(['Attach the recent logs of checkout-api to the report?']);
        const written = reportsWritten(cluster, taskId);
        expect(written).toHaveLength(1);
        expect(written[0].replica).not.toBe(victim.index);
      } finally {
        await close();
      }
    });

    it('survives a Redis restart mid-run (AOF): bus and queue reconnect, the task completes once, listeners are told to resync', async () => {
      const survivors = alive();
      const uri = 'ops://services/payments-worker';
      const listeners = await Promise.all(
        survivors.map((replica) =>
          openListen(replica.mcpUrl, `resync-${replica.index}`, {
            toolsListChanged: true,
            resourceSubscriptions: [uri],
          }),
        ),
      );
      streams.push(...listeners);
      const { session, close } = await taskSession(cluster.mcpUrl, { includeLogs: true });
      try {
        const execution = await session.callTool(
          'incident_report',
          { service: 'payments-worker' },
          { task: { preference: 'require' } },
        );
        expect(execution.kind).toBe('task');
        const taskId = execution.handle!.taskId;
        await workerOf(taskId, ['active'], 10_000);
        await cluster.redis.stop();
        await sleep(1_000);
        await cluster.redis.start();
        for (const stream of listeners) {
          await stream.waitFor(
            (message) => message.method === 'notifications/tools/list_changed',
            'the resync list change',
            20_000,
          );
          await stream.waitFor(
            (message) => message.method === 'notifications/resources/updated' && message.params?.uri === uri,
            'the resync update',
            20_000,
          );
        }
        // The subscribers are back; the command clients and the queue may reconnect a moment later, and a request
        // in between gets 503 with Retry-After (which this client does not retry): wait until every replica is
        // healthy again before the client polls and answers.
        expect(await healthOf(survivors, 20_000), '/health of every replica after Redis came back').toEqual(
          survivors.map(() => 200),
        );
        const { outcome } = await execution.settle();
        expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
        expect(reportsWritten(cluster, taskId)).toHaveLength(1);
        // Delivery goes on after the restart: a publish on one replica reaches the others.
        const before = listeners.map((stream) => framesOf(stream, 'notifications/resources/updated', uri).length);
        resultOf(
          await post(survivors[0].mcpUrl, 'tools/call', {
            name: 'scale_service',
            arguments: { name: 'payments-worker', replicas: 5 },
          }),
        );
        for (const [index, stream] of listeners.entries()) {
          await stream.until(
            () => framesOf(stream, 'notifications/resources/updated', uri).length > before[index],
            10_000,
            'an update after the restart',
          );
          expect(stream.problems).toEqual([]);
        }
      } finally {
        for (const stream of listeners) stream.close();
        await close();
      }
    });

    it('with Redis down: a task call fails fast with a clear error, a plain tool still works, /health says why', async () => {
      await cluster.redis.stop({ hard: true });
      try {
        const call = await post(
          cluster.mcpUrl,
          'tools/call',
          { name: 'incident_report', arguments: { service: 'checkout-api' } },
          { ...FORM, ...TASKS },
        );
        expect(call.status, call.text).toBe(503);
        const error = (call.json as { error?: { code: number; message: string } }).error;
        expect(error?.code, call.text).toBe(-32603);
        expect(error?.message).toMatch(/redis|unavailable|try again/i);

        const plain = resultOf(
          await post(cluster.mcpUrl, 'tools/call', { name: 'get_service', arguments: { name: 'checkout-api' } }),
        );
        expect(plain.structuredContent).toMatchObject({ name: 'checkout-api' });

        const health = await fetch(`${alive()[0].baseUrl}/health`);
        expect(health.status).toBe(503);
        const report = (await health.json()) as { error: Record<string, { reason?: string }> };
        expect(report.error['mcp-redis'].reason).toContain('redis: unreachable');
      } finally {
        await cluster.redis.start();
      }
      // And back: /health is 200 again once Redis and the workers reconnected.
      expect(await healthOf([alive()[0]], 20_000), '/health after Redis came back').toEqual([200]);
    });
  });
}
