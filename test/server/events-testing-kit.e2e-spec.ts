import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpEvents } from 'nest-mcp';
import { McpTestingClient, McpTestingError, McpWebhookReceiver } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventsFixtureModule } from '../fixtures/events.fixture.js';

/**
 * nest-mcp/testing for the events extension: `listEvents`, `pollEvents`, `streamEvents`, `subscribeEvents` /
 * `unsubscribeEvents` and the loopback `McpWebhookReceiver`, in the three ways a test reaches the server: in-process,
 * and over HTTP on Express and on Fastify. The `#region docs:…` blocks are quoted by docs/events.md.
 */

type Mode = 'in-process' | 'express' | 'fastify';

describe.each<Mode>(['in-process', 'express', 'fastify'])('McpTestingClient and events (%s)', (mode) => {
  let moduleRef: TestingModule;
  let app: INestApplication | undefined;
  let client: McpTestingClient;
  let events: McpEvents;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        EventsFixtureModule.forRoot({ events: { webhooks: { allowInsecureLoopback: true, retryBaseMs: 40 } } }),
      ],
    }).compile();
    if (mode === 'in-process') {
      client = await McpTestingClient.create(moduleRef, { principal: 'alice' });
    } else {
      app =
        mode === 'fastify'
          ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
          : moduleRef.createNestApplication({ logger: false });
      await app.listen(0, '127.0.0.1');
      client = await McpTestingClient.connect(app, { headers: { 'x-principal': 'alice' } });
    }
    events = moduleRef.get(McpEvents);
  });

  afterAll(async () => {
    await (app ?? moduleRef).close();
  });

  it('listEvents: every visible type', async () => {
    expect((await client.listEvents()).map((type) => type.name)).toEqual(
      ['incident.opened', 'deploy.finished', 'billing.charge', ...(mode === 'in-process' ? ['audit.entry'] : [])].sort(
        (a, b) => order(a) - order(b),
      ),
    );
  });

  it('pollEvents: the position, then what happened since', async () => {
    // #region docs:testing-poll
    const start = await client.pollEvents('incident.opened', { severity: 'P1' });
    await events.emit('incident.opened', { id: 'K-1', severity: 'P1', service: 'api', title: 'DB down' });
    const next = await client.pollEvents('incident.opened', { severity: 'P1' }, { cursor: start.cursor });
    expect(next.events.map((event) => event.data.incidentId)).toEqual(['K-1']);
    // #endregion docs:testing-poll
  });

  it('streamEvents: active, then events; a refusal throws McpTestingError', async () => {
    // #region docs:testing-stream
    const stream = await client.streamEvents('incident.opened', { severity: 'P2' });
    expect(stream.active.truncated).toBe(false);
    await events.emit('incident.opened', { id: 'K-2', severity: 'P2', service: 'api', title: 'Slow' });
    expect((await stream.nextEvent()).data).toEqual({ incidentId: 'K-2', severity: 'P2', title: 'Slow' });
    await stream.close();
    // #endregion docs:testing-stream
    await expect(client.streamEvents('no.such.type')).rejects.toBeInstanceOf(McpTestingError);
  });

  it('subscribeEvents with McpWebhookReceiver: a verified delivery, then unsubscribe', async () => {
    // #region docs:testing-webhook
    const receiver = await McpWebhookReceiver.start();
    try {
      const subscription = await client.subscribeEvents(
        'incident.opened',
        { severity: 'P3' },
        { url: receiver.url, secret: receiver.secret },
      );
      expect(subscription.id).toMatch(/^sub_/);
      await events.emit(
        'incident.opened',
        { id: 'K-3', severity: 'P3', service: 'api', title: 'Typo' },
        { eventId: 'evt_K-3' },
      );
      const delivery = await receiver.nextEvent();
      expect(delivery.verified).toBe(true);
      expect(delivery.headers['webhook-id']).toBe('evt_K-3');
      expect(delivery.json.data).toEqual({ incidentId: 'K-3', severity: 'P3', title: 'Typo' });
      await client.unsubscribeEvents('incident.opened', { severity: 'P3' }, receiver.url);
    } finally {
      await receiver.close();
    }
    // #endregion docs:testing-webhook
    expect(receiver.requests.map((request) => request.kind)).toEqual(['verification', 'event']);
  });
});

describe('McpTestingClient.as and event types with @McpScopes (in-process)', () => {
  let moduleRef: TestingModule;
  let client: McpTestingClient;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [EventsFixtureModule.forRoot()] }).compile();
    client = await McpTestingClient.create(moduleRef);
  });

  afterAll(() => moduleRef.close());

  it('@McpScopes on an event type: a caller without the scope does not see it and is refused 403; with it, it can poll', async () => {
    const reader = client.as({ subject: 'ana', scopes: [] });
    expect((await reader.listEvents()).map((type) => type.name)).not.toContain('audit.entry');
    await expect(reader.pollEvents('audit.entry')).rejects.toMatchObject({ httpStatus: 403 });
    const auditor = client.as({ subject: 'ana', scopes: ['audit:read'] });
    expect((await auditor.listEvents()).map((type) => type.name)).toContain('audit.entry');
    expect((await auditor.pollEvents('audit.entry')).events).toEqual([]);
  });
});

/** Registration order of the fixture's types. */
function order(name: string): number {
  return ['incident.opened', 'deploy.finished', 'audit.entry', 'billing.charge'].indexOf(name);
}
