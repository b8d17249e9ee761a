import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoCluster, startCluster } from './support/cluster.js';
import { connectClient } from './support/mcp-client.factory.js';

/**
 * The topology of a demo cluster (test/support/cluster.ts: redis-server, three demo replicas as child processes, nginx
 * in front) as clients meet it through the balancer: 2025-11-25 sessions stick to the replica that holds them (each
 * replica's `sessionRoute` starts its session ids, nginx routes on it), 2026-07-28 requests go round robin, and a
 * session whose replica died answers 404, after which the official client starts a new one.
 */

const ADMIN = { 'x-ops-role': 'admin' };

/** A fetch that adds `headers` and records the replica nginx chose (`X-Upstream`) for each request. */
function recordingFetch(headers: Record<string, string> = {}) {
  const calls: Array<{ method: string; session: string | null; upstream: string | null; status: number }> = [];
  const fetchWith: typeof fetch = async (input, init) => {
    const sent = new Headers(init?.headers);
    const response = await fetch(input, { ...init, headers: { ...Object.fromEntries(sent), ...headers } });
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    calls.push({ method: body?.method ?? init?.method ?? 'GET', session: sent.get('mcp-session-id'), upstream: response.headers.get('x-upstream'), status: response.status });
    return response;
  };
  return { fetch: fetchWith, calls };
}

/** The official client in its default (2025-11-25) mode through `url`, answering the decommission form. */
async function legacyClient(url: URL, fetchWith: typeof fetch): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'cluster-topology-e2e', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
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
      expect(new Set(calls.map((call) => call.upstream))).toEqual(new Set(cluster.replicas.map((replica) => replica.address)));
    });

    it('keeps a 2025-11-25 session on the replica that holds it: its elicitation rounds complete through the balancer', async () => {
      const recorder = recordingFetch(ADMIN);
      const { client, transport } = await legacyClient(cluster.mcpUrl, recorder.fetch);
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

    it("answers 404 for a session whose replica died, and the official client recovers with a new session", async () => {
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
