import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoCluster, type Replica, startCluster, startReplica } from '../support/cluster.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { listen } from '../support/sse-stream.reader.js';
import { sleep } from '../support/wait.util.js';

/**
 * The topology of a demo cluster (test/support/cluster.ts: redis-server with AOF, three demo replicas as child
 * processes, nginx in front) as clients meet it through the balancer:
 * - the server's runtime state is the cluster's (nest-mcp-redis `registryState`): after a feature flag switched on one
 *   replica, every replica lists and runs the tool it adds — also one started later, also after Redis restarted;
 * - 2025-11-25 sessions stick to the replica that holds them (each replica's `sessionRoute` starts its session ids,
 *   nginx routes on it), 2026-07-28 requests go round robin, and a session whose replica died answers 404, after which
 *   the official client starts a new one.
 */

const ADMIN = { 'x-ops-role': 'admin' };
const SAMPLES = 30;

/** A raw 2026-07-28 POST; the replica that answered is in `headers.get('x-upstream')` through the balancer. */
function post(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return mcpPost(url, { method, params, meta: requestMeta(), headers });
}

function resultOf(response: RawResponse): Record<string, any> {
  const body = response.json as { result?: Record<string, any> };
  if (!body?.result) throw new Error(`expected a result, got ${response.status}: ${response.text}`);
  return body.result;
}

/** The tool names of `SAMPLES` tools/list calls through `url`, with the replicas that answered them. */
async function sampleLists(url: URL): Promise<{ lists: string[]; upstreams: Set<string | null> }> {
  const lists: string[] = [];
  const upstreams = new Set<string | null>();
  for (let i = 0; i < SAMPLES; i++) {
    const response = await post(url, 'tools/list', {});
    upstreams.add(response.headers.get('x-upstream'));
    lists.push(
      resultOf(response)
        .tools.map((tool: { name: string }) => tool.name)
        .join(','),
    );
  }
  return { lists, upstreams };
}

/** Each replica's `/health` status once all answered 200 (Redis reconnected), or when `timeoutMs` passed. */
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

/** A fetch that adds `headers` and records the replica nginx chose (`X-Upstream`) for each request. */
function recordingFetch(headers: Record<string, string> = {}) {
  const calls: Array<{ method: string; session: string | null; upstream: string | null; status: number }> = [];
  const fetchWith: typeof fetch = async (input, init) => {
    const sent = new Headers(init?.headers);
    const response = await fetch(input, { ...init, headers: { ...Object.fromEntries(sent), ...headers } });
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    calls.push({
      method: body?.method ?? init?.method ?? 'GET',
      session: sent.get('mcp-session-id'),
      upstream: response.headers.get('x-upstream'),
      status: response.status,
    });
    return response;
  };
  return { fetch: fetchWith, calls };
}

/** The official client in its default (2025-11-25) mode through `url`, answering the decommission form. */
async function legacyClient(
  url: URL,
  fetchWith: typeof fetch,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'cluster-topology-e2e', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const name = /Decommission (\S+)\?/.exec(String(request.params.message))?.[1] ?? '';
    return { action: 'accept', content: { confirmName: name } };
  });
  const transport = new StreamableHTTPClientTransport(url, { fetch: fetchWith });
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
  return { client, transport };
}

for (const adapter of ['express', 'fastify'] as const) {
  describe(`the topology of a demo cluster behind nginx (${adapter})`, { timeout: 90_000 }, () => {
    let cluster: DemoCluster;

    beforeAll(async () => {
      cluster = await startCluster({ adapter });
    }, 120_000);
    afterAll(async () => {
      await cluster?.dispose();
    }, 60_000);

    it('after replica B switches a flag on, 30 lists through the balancer agree and 30 calls of the new tool succeed', async () => {
      const [a, b, c] = cluster.replicas;
      const before = await sampleLists(cluster.mcpUrl);
      expect(new Set(before.lists).size, 'the lists agree before the change').toBe(1);
      expect(before.lists[0].split(',')).not.toContain('estimate_costs');

      const listener = await listen(c.mcpUrl, 'tools-on-c', { toolsListChanged: true });
      expect(listener.status).toBe(200);
      await listener.nextFrames(1, 10_000);
      const flag = resultOf(
        await post(
          b.adminUrl,
          'tools/call',
          { name: 'set_feature_flag', arguments: { flag: 'cost-insights', enabled: true } },
          ADMIN,
        ),
      );
      expect(flag.content).toEqual([{ type: 'text', text: 'cost-insights is now on.' }]);
      await listener.waitFor(
        (message) => message.method === 'notifications/tools/list_changed',
        'tools/list_changed on replica C',
        10_000,
      );
      listener.close();

      const after = await sampleLists(cluster.mcpUrl);
      expect(after.upstreams, 'every replica answered some of the lists').toEqual(
        new Set(cluster.replicas.map((replica) => replica.address)),
      );
      expect(new Set(after.lists).size, `the ${SAMPLES} lists agree`).toBe(1);
      expect(after.lists[0].split(',')).toContain('estimate_costs');

      const upstreams = new Set<string | null>();
      for (let i = 0; i < SAMPLES; i++) {
        const response = await post(cluster.mcpUrl, 'tools/call', {
          name: 'estimate_costs',
          arguments: { name: 'checkout-api' },
        });
        upstreams.add(response.headers.get('x-upstream'));
        const result = resultOf(response);
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ currency: 'USD', services: [{ name: 'checkout-api' }] });
      }
      expect(upstreams.size).toBe(3);
      // The flag itself is the shared state: replica A says it is on already.
      const again = resultOf(
        await post(
          a.adminUrl,
          'tools/call',
          { name: 'set_feature_flag', arguments: { flag: 'cost-insights', enabled: true } },
          ADMIN,
        ),
      );
      expect(again.content).toEqual([{ type: 'text', text: 'cost-insights is already on.' }]);
    });

    it('a replica started after the change lists the new tool before it serves anything, and runs it', async () => {
      const late = await startReplica(9, {
        ADAPTER: adapter,
        REDIS_URL: cluster.redis.url,
        MCP_STATE_KEYS: cluster.stateKeys,
        MCP_SESSION_ROUTE: 'late',
      });
      try {
        const tools = resultOf(await post(late.mcpUrl, 'tools/list', {})).tools.map(
          (tool: { name: string }) => tool.name,
        );
        expect(tools).toContain('estimate_costs');
        expect(tools.join(',')).toBe((await sampleLists(cluster.mcpUrl)).lists[0]);
        const result = resultOf(await post(late.mcpUrl, 'tools/call', { name: 'estimate_costs', arguments: {} }));
        expect(result.structuredContent).toMatchObject({ currency: 'USD' });
      } finally {
        await late.stop();
      }
    });

    it('after a Redis restart the replicas still agree, and a change made then reaches every one of them', async () => {
      await cluster.redis.stop();
      await sleep(500);
      await cluster.redis.start();
      expect(await healthOf(cluster.replicas, 20_000), '/health of every replica after Redis came back').toEqual([
        200, 200, 200,
      ]);
      const kept = await sampleLists(cluster.mcpUrl);
      expect(new Set(kept.lists).size).toBe(1);
      expect(kept.lists[0].split(',')).toContain('estimate_costs');

      const [a] = cluster.replicas;
      const off = resultOf(
        await post(
          a.adminUrl,
          'tools/call',
          { name: 'set_feature_flag', arguments: { flag: 'cost-insights', enabled: false } },
          ADMIN,
        ),
      );
      expect(off.content).toEqual([{ type: 'text', text: 'cost-insights is now off.' }]);
      const after = await sampleLists(cluster.mcpUrl);
      expect(new Set(after.lists).size).toBe(1);
      expect(after.lists[0].split(',')).not.toContain('estimate_costs');
      for (const replica of cluster.replicas) {
        const call = await post(replica.mcpUrl, 'tools/call', { name: 'estimate_costs', arguments: {} });
        expect((call.json as { error?: { code: number } }).error?.code, call.text).toBe(-32602);
      }
    });

    it('routes 2026-07-28 requests round robin over every replica', async () => {
      const recorder = recordingFetch();
      const client = await connectClient(cluster.mcpUrl, { fetch: recorder.fetch });
      for (let i = 0; i < 6; i++) {
        const result = await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } });
        expect(result.structuredContent).toMatchObject({ name: 'checkout-api' });
      }
      await client.close();
      const calls = recorder.calls.filter((call) => call.method === 'tools/call');
      expect(calls.every((call) => call.session === null)).toBe(true);
      expect(new Set(calls.map((call) => call.upstream))).toEqual(
        new Set(cluster.replicas.map((replica) => replica.address)),
      );
    });

    it('keeps a 2025-11-25 session on the replica that holds it: its elicitation rounds complete through the balancer', async () => {
      const recorder = recordingFetch(ADMIN);
      // The admin server (decommission_service elicits), through the same balancer: sessions stick the same way.
      const { client, transport } = await legacyClient(cluster.adminUrl, recorder.fetch);
      const holder = cluster.replicas.find((replica) => transport.sessionId!.startsWith(`${replica.route}.`));
      expect(holder, `the session id ${transport.sessionId} starts with a replica's route`).toBeDefined();
      for (const name of ['auth-gateway', 'search-indexer']) {
        const result = await client.callTool({ name: 'decommission_service', arguments: { name } });
        expect(result.content).toEqual([{ type: 'text', text: `Decommissioned ${name}.` }]);
      }
      for (let i = 0; i < 6; i++) expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      const inSession = recorder.calls.filter((call) => call.session !== null && call.method !== 'DELETE');
      // initialized, two calls (each answered over the session's streams), six lists: every one on the holder.
      expect(inSession.length).toBeGreaterThanOrEqual(9);
      expect(inSession.filter((call) => call.status >= 400)).toEqual([]);
      expect(new Set(inSession.map((call) => call.upstream))).toEqual(new Set([holder!.address]));
    });

    it('answers 404 for a session whose replica died, and the official client recovers with a new session', async () => {
      const recorder = recordingFetch();
      const { client, transport } = await legacyClient(cluster.mcpUrl, recorder.fetch);
      const holder = cluster.replicas.find((replica) => transport.sessionId!.startsWith(`${replica.route}.`))!;
      expect((await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } })).isError).toBeFalsy();
      await holder.kill9();

      // nginx finds the holder gone and sends the request to a backup replica, which does not know the session.
      const failure = await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(SdkHttpError);
      expect((failure as SdkHttpError).status).toBe(404);
      const refused = recorder.calls.at(-1)!;
      expect(refused.upstream).not.toBe(holder.address);

      // What the spec asks of a client on 404: start over with initialize, without the session id.
      await client.close();
      const fresh = new StreamableHTTPClientTransport(cluster.mcpUrl, { fetch: recorder.fetch });
      await client.connect(fresh);
      expect(fresh.sessionId).not.toBe(transport.sessionId);
      expect(fresh.sessionId!.startsWith(`${holder.route}.`)).toBe(false);
      const result = await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } });
      expect(result.structuredContent).toMatchObject({ name: 'checkout-api' });
      await client.close();
    });
  });
}
