import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  experimental_createMCPClient as createMCPClient,
  experimental_createMCPEventWebhook as createMCPEventWebhook,
  type Experimental_MCPEvent as MCPEvent,
  type Experimental_MCPEventStore as MCPEventStore,
  type Experimental_MCPEventSubscription as MCPEventSubscription,
} from '@ai-sdk/mcp';
import type { Type } from '@nestjs/common';
import { McpTestingClient, McpWebhookReceiver } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { SEP_CODES, errorOf, eventsPost, resultOf } from '../support/events.util.js';
import { setEnv } from '../support/env.util.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { until } from '../support/wait.util.js';

/** The demo's AppModule, imported after the environment it reads at import time is set. */
async function demoModule(env: Record<string, string | undefined>): Promise<Type> {
  vi.resetModules();
  setEnv(env);
  return (await import('../../apps/demo/src/app.module.js')).AppModule as Type;
}

const call = (server: RunningApp, name: string, args: Record<string, unknown>) =>
  mcpPost(server.mcpUrl, { method: 'tools/call', params: { name, arguments: args }, meta: requestMeta() });

/** A private subscription store for the AI SDK, in memory (a real application keeps it durable). */
class MemoryEventStore implements MCPEventStore {
  readonly records = new Map<string, MCPEventSubscription>();
  async get(key: string) {
    return this.records.get(key);
  }
  async getById(id: string) {
    return [...this.records.values()].find((record) => record.id === id);
  }
  async set(subscription: MCPEventSubscription) {
    this.records.set(subscription.key, subscription);
  }
  async update(key: string, patch: Partial<MCPEventSubscription>) {
    const record = this.records.get(key);
    if (record) this.records.set(key, { ...record, ...patch });
  }
  async delete(key: string) {
    this.records.delete(key);
  }
}

/** The AI SDK's webhook handler (Web Request/Response) on a loopback node:http server. */
async function serveWebhook(
  handler: (request: Request) => Promise<Response>,
): Promise<{ url: string; statuses: number[]; close(): Promise<void> }> {
  const statuses: number[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers))
        if (typeof value === 'string') headers.set(name, value);
      const request = new Request(`http://127.0.0.1${incoming.url}`, {
        method: incoming.method,
        headers,
        body: incoming.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      const response = await handler(request);
      statuses.push(response.status);
      outgoing
        .writeHead(response.status, Object.fromEntries(response.headers))
        .end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp-events?route=demo`,
    statuses,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The demo's events (docs/events.md, apps/demo/README.md): its tools emit `deployment.finished`, `incident.opened`
 * and `service.status_changed`; with `MCP_DEV_WEBHOOKS=1` the plain demo accepts loopback webhooks for its
 * development principal — and the Vercel AI SDK's MCP client (`@ai-sdk/mcp`) subscribes, verifies a delivery with its
 * own webhook handler, and unsubscribes. Without the switch, poll and push work and webhooks are refused.
 */
describe.each(ADAPTERS)('the demo emits events from its tools (%s)', (adapter) => {
  let server: RunningApp;

  beforeAll(async () => {
    const AppModule = await demoModule({ MCP_DEV_WEBHOOKS: '1', AUTH_ISSUER: undefined, REDIS_URL: undefined });
    server = await startApp(adapter, { imports: [AppModule] });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('lists its three event types', async () => {
    const list = resultOf(await eventsPost(server.mcpUrl, 'events/list', {}));
    expect(list.events.map((type: { name: string }) => type.name)).toEqual([
      'deployment.finished',
      'incident.opened',
      'service.status_changed',
    ]);
  });

  it('open_incident emits incident.opened (id inc_<incident>) and a sev1 degrades the service: service.status_changed, by poll and push', async () => {
    const client = await McpTestingClient.connect(server.app);
    const stream = await client.streamEvents('service.status_changed', { service: 'checkout-api' });
    try {
      const start = resultOf(
        await eventsPost(server.mcpUrl, 'events/poll', { name: 'incident.opened', arguments: { severity: 'sev1' } }),
      );
      const opened = await call(server, 'open_incident', {
        service: 'checkout-api',
        title: 'Payments failing',
        severity: 'sev1',
      });
      expect(opened.text).toMatch(/Opened INC-[0-9A-F]{8} \(sev1\) on checkout-api/);
      const polled = resultOf(
        await eventsPost(server.mcpUrl, 'events/poll', {
          name: 'incident.opened',
          arguments: { severity: 'sev1' },
          cursor: start.cursor,
        }),
      );
      expect(polled.events).toHaveLength(1);
      expect(polled.events[0]).toMatchObject({
        eventId: expect.stringMatching(/^inc_INC-/),
        data: { service: 'checkout-api', severity: 'sev1', title: 'Payments failing' },
      });
      expect((await stream.nextEvent()).data).toEqual({ service: 'checkout-api', from: 'running', to: 'degraded' });
      await call(server, 'restart_service', { name: 'checkout-api' });
      expect((await stream.nextEvent()).data).toEqual({ service: 'checkout-api', from: 'degraded', to: 'running' });
    } finally {
      await stream.close();
    }
  });

  it('deploy_release emits deployment.finished when the rollout ends', async () => {
    const start = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', {
        name: 'deployment.finished',
        arguments: { service: 'auth-gateway' },
      }),
    );
    const deployed = await call(server, 'deploy_release', { name: 'auth-gateway', version: '7.1.0' });
    expect(deployed.status).toBe(200);
    const polled = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', {
        name: 'deployment.finished',
        arguments: { service: 'auth-gateway' },
        cursor: start.cursor,
      }),
    );
    expect(polled.events.map((event: { data: unknown }) => event.data)).toEqual([
      { service: 'auth-gateway', version: '7.1.0', fromVersion: '7.0.2', outcome: 'succeeded' },
    ]);
  });

  it('a webhook on the plain demo (MCP_DEV_WEBHOOKS=1: the dev-user principal, a loopback receiver) gets a signed delivery', async () => {
    const target = await McpWebhookReceiver.start();
    try {
      const subscription = resultOf(
        await eventsPost(server.mcpUrl, 'events/subscribe', {
          name: 'incident.opened',
          arguments: { service: 'search-indexer' },
          delivery: { url: target.url, secret: target.secret },
        }),
      );
      expect(subscription.id).toMatch(/^sub_/);
      await call(server, 'open_incident', { service: 'search-indexer', title: 'Index lagging', severity: 'sev3' });
      const delivery = await target.nextEvent();
      expect(delivery.verified).toBe(true);
      expect(delivery.json).toMatchObject({
        name: 'incident.opened',
        data: { service: 'search-indexer', severity: 'sev3' },
      });
      resultOf(
        await eventsPost(server.mcpUrl, 'events/unsubscribe', {
          name: 'incident.opened',
          arguments: { service: 'search-indexer' },
          delivery: { url: target.url },
        }),
      );
    } finally {
      await target.close();
    }
  });

  it('the Vercel AI SDK client (@ai-sdk/mcp) subscribes by webhook, receives and verifies a delivery, and unsubscribes', async () => {
    const store = new MemoryEventStore();
    const received: MCPEvent[] = [];
    const webhook = await serveWebhook(
      createMCPEventWebhook({ store, onEvent: async ({ event }) => void received.push(event) }),
    );
    const client = await createMCPClient({
      transport: { type: 'http', url: server.mcpUrl.href },
      experimental_events: { store },
    });
    try {
      const catalog = await client.experimental_events.list();
      expect(catalog.events.map((type) => type.name)).toContain('deployment.finished');
      const subscribed = await client.experimental_events.subscribe({
        name: 'deployment.finished',
        arguments: { service: 'payments-worker' },
        delivery: { mode: 'webhook', url: webhook.url, allowInsecureLocalhost: true },
      });
      expect(subscribed.id).toMatch(/^sub_/);
      expect(subscribed.truncated).toBe(false);
      await call(server, 'deploy_release', { name: 'payments-worker', version: '2.4.0' });
      await until(() => received.length === 1, 10_000, 'the AI SDK webhook handler to accept the delivery');
      expect(received[0]).toMatchObject({
        name: 'deployment.finished',
        data: { service: 'payments-worker', version: '2.4.0', outcome: 'succeeded' },
      });
      // The handler verified the signature with the secret the client made, and answered 2xx.
      expect(webhook.statuses.at(-1)).toBeGreaterThanOrEqual(200);
      expect(webhook.statuses.at(-1)).toBeLessThan(300);
      await client.experimental_events.unsubscribe({ id: subscribed.id });
      // Unsubscribed on the server: the same key is not found any more.
      const again = await eventsPost(server.mcpUrl, 'events/unsubscribe', {
        name: 'deployment.finished',
        arguments: { service: 'payments-worker' },
        delivery: { url: webhook.url },
      });
      errorOf(again, SEP_CODES.NotFound);
      await call(server, 'deploy_release', { name: 'payments-worker', version: '2.5.0' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(received).toHaveLength(1);
    } finally {
      await client.close();
      await webhook.close();
    }
  }, 30_000);
});

describe('the plain demo without MCP_DEV_WEBHOOKS', () => {
  let server: RunningApp;

  beforeAll(async () => {
    const AppModule = await demoModule({ MCP_DEV_WEBHOOKS: undefined, AUTH_ISSUER: undefined, REDIS_URL: undefined });
    server = await startApp('express', { imports: [AppModule] });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('polls, but refuses webhooks: no principal, so events/subscribe is Forbidden', async () => {
    resultOf(await eventsPost(server.mcpUrl, 'events/poll', { name: 'incident.opened' }));
    const forbidden = errorOf(
      await eventsPost(server.mcpUrl, 'events/subscribe', {
        name: 'incident.opened',
        delivery: { url: 'https://hooks.example.com/x', secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}` },
      }),
      SEP_CODES.Forbidden,
    );
    expect(forbidden.message).toMatch(/^Forbidden/);
  });
});
