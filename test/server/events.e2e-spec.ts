import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpEvents, McpEventTypes } from 'nest-mcp';
import { EventsFixtureModule, NoEventsFixtureModule } from '../fixtures/events.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { errorOf, EVENTS, eventsPost, OPENAI_CODES, resultOf, SEP_CODES } from '../support/events.util.js';
import { legacyPost, rawInitialize } from '../support/legacy-client.factory.js';
import { sleep } from '../support/wait.util.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { z } from 'zod';

/**
 * The events extension (SEP-3415) on the 2026-07-28 wire over real HTTP, both adapters: negotiation, `events/list`,
 * `events/poll` with sealed cursors, and the errors of each profile. Titles name the checklist rows (E-n) and the
 * draft conformance checks they reproduce.
 */

const emitter = (app: INestApplication) => app.get(McpEvents);

describe.each(ADAPTERS)('events: discovery, list and poll (%s)', (adapter) => {
  let server: RunningApp;
  let bare: RunningApp;
  let openai: RunningApp;
  let hooked: RunningApp;

  beforeAll(async () => {
    hooked = await startApp(adapter, {
      imports: [
        EventsFixtureModule.forRoot({
          visibility: (handler, caller) =>
            handler.kind !== 'event' || handler.name !== 'deploy.finished' || caller.principal === 'alice',
        }),
      ],
    });
    server = await startApp(adapter, {
      imports: [EventsFixtureModule.forRoot({ events: { pollIntervalMs: 1500, cursorTtlMs: 60_000 } })],
    });
    bare = await startApp(adapter, { imports: [NoEventsFixtureModule] });
    openai = await startApp(adapter, {
      imports: [EventsFixtureModule.forRoot({ events: { profile: 'openai', topLevelCapability: false } })],
    });
  });

  afterAll(async () => {
    await Promise.all([server?.close(), bare?.close(), openai?.close(), hooked?.close()]);
  });

  const poll = (params: Record<string, unknown>, principal?: string) =>
    eventsPost(server.mcpUrl, 'events/poll', params, principal);

  it('E-1, E-2: server/discover advertises extensions["io.modelcontextprotocol/events"] {listChanged:true} and the top-level events: {} (conformance events-discovery capability)', async () => {
    const result = resultOf(await eventsPost(server.mcpUrl, 'server/discover', {}));
    expect(result.capabilities.extensions[EVENTS]).toEqual({ listChanged: true });
    expect(result.capabilities.events).toEqual({});
    const withoutKey = resultOf(await eventsPost(openai.mcpUrl, 'server/discover', {}));
    expect(withoutKey.capabilities.extensions[EVENTS]).toEqual({ listChanged: true });
    expect(withoutKey.capabilities).not.toHaveProperty('events');
  });

  it('E-3: a server without event types advertises nothing and answers every events/* method -32601 (HTTP 404)', async () => {
    const result = resultOf(await eventsPost(bare.mcpUrl, 'server/discover', {}));
    expect(result.capabilities.extensions?.[EVENTS]).toBeUndefined();
    expect(result.capabilities).not.toHaveProperty('events');
    for (const method of ['events/list', 'events/poll', 'events/stream', 'events/subscribe', 'events/unsubscribe']) {
      errorOf(await eventsPost(bare.mcpUrl, method, { name: 'x' }), -32601, 404);
    }
  });

  it('E-3: on the 2025-11-25 wire the extension is not declared in initialize and events/list is -32601', async () => {
    const { sessionId, response } = await rawInitialize(server.mcpUrl);
    const capabilities = (response.messages[0] as unknown as { result: { capabilities: Record<string, any> } }).result
      .capabilities;
    expect(capabilities.extensions?.[EVENTS]).toBeUndefined();
    expect(capabilities).not.toHaveProperty('events');
    const answer = await legacyPost(server.mcpUrl, { id: 7, method: 'events/list', params: {} }, { sessionId });
    expect((answer.messages[0] as { error: { code: number } }).error.code).toBe(-32601);
  });

  it('E-4, E-6: events/list describes each visible type with name, description, delivery, inputSchema and payloadSchema, in registration order, without the client declaring the extension', async () => {
    const result = resultOf(await eventsPost(server.mcpUrl, 'events/list', {}));
    expect(result).not.toHaveProperty('nextCursor');
    expect(result).not.toHaveProperty('ttlMs');
    const names = result.events.map((type: { name: string }) => type.name);
    expect(names).toEqual(['incident.opened', 'deploy.finished', 'billing.charge']);
    const [incident, deploy, billing] = result.events;
    expect(incident).toMatchObject({
      name: 'incident.opened',
      description: 'An incident was opened',
      delivery: ['poll', 'push', 'webhook'],
    });
    expect(incident.inputSchema).toMatchObject({
      type: 'object',
      properties: { severity: { enum: ['P1', 'P2', 'P3'] } },
    });
    expect(incident.payloadSchema).toMatchObject({ type: 'object', required: ['incidentId', 'severity'] });
    expect(deploy.delivery).toEqual(['push', 'webhook']);
    expect(deploy.payloadSchema).toEqual({ type: 'object' });
    expect(billing.inputSchema).toEqual({ type: 'object', properties: { account: { type: 'string' } } });
  });

  it('E-6: a cursor events/list did not mint is -32602', async () => {
    errorOf(await eventsPost(server.mcpUrl, 'events/list', { cursor: 'bm90LWEtY3Vyc29y' }), -32602);
  });

  it('E-11: a type with @McpScopes is left out of events/list for an HTTP caller without a token, and polling it is refused 403 as a scoped tool is', async () => {
    const names = resultOf(await eventsPost(server.mcpUrl, 'events/list', {})).events.map(
      (type: { name: string }) => type.name,
    );
    expect(names).not.toContain('audit.entry');
    const refused = errorOf(await poll({ name: 'audit.entry', cursor: null }), -32600, 403);
    expect(refused.data).toEqual({ requiredScopes: ['audit:read'] });
  });

  it("E-11: the visibility hook hides a type per caller: absent from that caller's events/list, and NotFound exactly like an unknown name", async () => {
    const url = hooked.mcpUrl;
    const listed = async (principal: string) =>
      resultOf(await eventsPost(url, 'events/list', {}, principal)).events.map((type: { name: string }) => type.name);
    expect(await listed('alice')).toContain('deploy.finished');
    expect(await listed('bob')).not.toContain('deploy.finished');
    const hidden = errorOf(
      await eventsPost(url, 'events/stream', { name: 'deploy.finished' }, 'bob'),
      SEP_CODES.NotFound,
    );
    const unknown = errorOf(
      await eventsPost(url, 'events/stream', { name: 'no.such.type' }, 'bob'),
      SEP_CODES.NotFound,
    );
    expect(hidden.data).toEqual(unknown.data);
    expect(hidden.message.replace(/"[^"]*"/, '')).toBe(unknown.message.replace(/"[^"]*"/, ''));
  });

  it('E-15, E-59: an unknown name is NotFound (-32023) with data.kind "event"; the openai profile answers -32011', async () => {
    expect(errorOf(await poll({ name: 'no.such.type' }), SEP_CODES.NotFound)).toMatchObject({
      message: expect.stringMatching(/^NotFound/),
      data: { kind: 'event' },
    });
    errorOf(await eventsPost(openai.mcpUrl, 'events/poll', { name: 'no.such.type' }), OPENAI_CODES.NotFound);
  });

  it('E-7: polling a type without poll in its delivery is Unsupported {feature:"deliveryMode", value:"poll"} (conformance poll-mode-unsupported)', async () => {
    const error = errorOf(await poll({ name: 'deploy.finished', cursor: null }), SEP_CODES.Unsupported);
    expect(error.data).toEqual({ feature: 'deliveryMode', value: 'poll' });
    errorOf(await eventsPost(openai.mcpUrl, 'events/poll', { name: 'deploy.finished' }), OPENAI_CODES.Unsupported);
  });

  it('E-14: arguments that fail inputSchema, that are not an object, or that exceed the size bound are -32602, never -32603', async () => {
    const bad = errorOf(await poll({ name: 'incident.opened', arguments: { severity: 'P9' } }), -32602);
    expect(bad.message).toMatch(/severity/);
    errorOf(await poll({ name: 'incident.opened', arguments: ['P1'] }), -32602);
    errorOf(await poll({ name: 'incident.opened', arguments: { service: 'x'.repeat(9_000) } }), -32602);
    errorOf(await poll({ name: 42 }), -32602);
    errorOf(await poll({ name: 'incident.opened', maxEvents: 0 }), -32602);
    errorOf(await poll({ name: 'incident.opened', maxAgeMs: -1 }), -32602);
  });

  it("E-55: the type's authorize hook admits only some callers with some arguments; the others are Forbidden", async () => {
    errorOf(await poll({ name: 'billing.charge', arguments: { account: 'acct-alice' } }, 'bob'), SEP_CODES.Forbidden);
    errorOf(await poll({ name: 'billing.charge', arguments: { account: 'acct-bob' } }, 'alice'), SEP_CODES.Forbidden);
    resultOf(await poll({ name: 'billing.charge', arguments: { account: 'acct-alice' }, cursor: null }, 'alice'));
  });

  it('E-16, E-18, E-49, E-52: cursor null answers no events and the current position; the cursor moves in quiet periods; nextPollMs in ms (conformance poll-events-array)', async () => {
    await emitter(server.app).emit('incident.opened', { id: 'INC-0', severity: 'P1', service: 'api', title: 'before' });
    const first = resultOf(await poll({ name: 'incident.opened', cursor: null }));
    expect(first).toEqual({
      resultType: 'complete',
      events: [],
      cursor: expect.any(String),
      truncated: false,
      hasMore: false,
      nextPollMs: 1500,
      _meta: expect.any(Object),
    });
    const absent = resultOf(await poll({ name: 'incident.opened' }));
    expect(absent.events).toEqual([]);
    const quiet = resultOf(await poll({ name: 'incident.opened', cursor: first.cursor }));
    expect(quiet.events).toEqual([]);
    expect(typeof quiet.cursor).toBe('string');
    expect(quiet).not.toHaveProperty('nextPollSeconds');
  });

  it("E-12, E-13, E-16: events after the cursor arrive through the matcher (filtered by the subscription's arguments), with eventId, name, timestamp with an offset, and an object data", async () => {
    const start = resultOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: null }));
    await emitter(server.app).emit(
      'incident.opened',
      { id: 'INC-1', severity: 'P1', service: 'api', title: 'DB down' },
      { eventId: 'evt_INC-1' },
    );
    await emitter(server.app).emit(
      'incident.opened',
      { id: 'INC-2', severity: 'P3', service: 'api', title: 'Slow page' },
      { eventId: 'evt_INC-2' },
    );
    const next = resultOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: start.cursor }));
    expect(next.events).toEqual([
      {
        eventId: 'evt_INC-1',
        name: 'incident.opened',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/),
        data: { incidentId: 'INC-1', severity: 'P1', title: 'DB down' },
      },
    ]);
    expect(next.truncated).toBe(false);
    expect(next.hasMore).toBe(false);
    const again = resultOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: next.cursor }));
    expect(again.events).toEqual([]);
  });

  it('E-17: maxEvents 1 with 3 pending answers one event, an intermediate cursor and hasMore; polling on delivers the rest in order', async () => {
    const start = resultOf(await poll({ name: 'incident.opened', arguments: { service: 'batch' }, cursor: null }));
    for (const index of [1, 2, 3])
      await emitter(server.app).emit('incident.opened', {
        id: `B-${index}`,
        severity: 'P2',
        service: 'batch',
        title: `b${index}`,
      });
    const seen: string[] = [];
    let cursor = start.cursor;
    let first = true;
    for (;;) {
      const page = resultOf(
        await poll({ name: 'incident.opened', arguments: { service: 'batch' }, cursor, maxEvents: 1 }),
      );
      expect(page.events.length).toBeLessThanOrEqual(1);
      if (first) expect(page.hasMore).toBe(true);
      first = false;
      seen.push(...page.events.map((event: { data: { incidentId: string } }) => event.data.incidentId));
      cursor = page.cursor;
      if (!page.hasMore) break;
    }
    expect(seen).toEqual(['B-1', 'B-2', 'B-3']);
  });

  it('E-19: a cursor minted for other arguments, another type, or altered, or issued by another server is -32602 (conformance cursor-*)', async () => {
    const p1 = resultOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: null }))
      .cursor as string;
    expect(
      errorOf(await poll({ name: 'incident.opened', arguments: { severity: 'P2' }, cursor: p1 }), -32602).data,
    ).toEqual({ reason: 'issued for another subscription' });
    errorOf(await poll({ name: 'incident.opened', cursor: p1 }), -32602);
    errorOf(await poll({ name: 'billing.charge', arguments: { account: 'acct-alice' }, cursor: p1 }, 'alice'), -32602);
    const altered = `${p1.slice(0, -4)}${p1.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    errorOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: altered }), -32602);
    errorOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: 'garbage' }), -32602);
    errorOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: 7 }), -32602);
    const foreign = resultOf(
      await eventsPost(openai.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: { severity: 'P1' },
        cursor: null,
      }),
    ).cursor;
    expect(
      errorOf(await poll({ name: 'incident.opened', arguments: { severity: 'P1' }, cursor: foreign }), -32602).data,
    ).toEqual({ reason: 'not issued by this server' });
  });

  it('E-30: key order of the arguments does not matter: a cursor minted for {a,b} resumes {b,a}', async () => {
    const cursor = resultOf(
      await poll({ name: 'incident.opened', arguments: { severity: 'P2', service: 'api' }, cursor: null }),
    ).cursor;
    resultOf(await poll({ name: 'incident.opened', arguments: { service: 'api', severity: 'P2' }, cursor }));
  });

  it('E-49, E-50: maxAgeMs older than the events after the cursor answers truncated: true and a fresh cursor, never an error (conformance max-age-*, truncated-*)', async () => {
    const start = resultOf(await poll({ name: 'incident.opened', arguments: { service: 'aged' }, cursor: null }));
    await emitter(server.app).emit('incident.opened', { id: 'OLD-1', severity: 'P2', service: 'aged', title: 'old' });
    await sleep(60);
    const aged = resultOf(
      await poll({ name: 'incident.opened', arguments: { service: 'aged' }, cursor: start.cursor, maxAgeMs: 20 }),
    );
    expect(aged.events).toEqual([]);
    expect(aged.truncated).toBe(true);
    const after = resultOf(
      await poll({ name: 'incident.opened', arguments: { service: 'aged' }, cursor: aged.cursor, maxAgeMs: 20 }),
    );
    expect(after.truncated).toBe(false);
    // maxAgeMs is ignored with a null cursor.
    expect(resultOf(await poll({ name: 'incident.opened', cursor: null, maxAgeMs: 1 })).truncated).toBe(false);
  });

  it('the official client (pinned to 2026-07-28) sees the extension in server/discover and lists and polls with plain requests', async () => {
    const client = await connectClient(server.mcpUrl);
    try {
      const capabilities = client.getServerCapabilities() as Record<string, any>;
      // (Its schema keeps only the capabilities it knows: the top-level `events` key is checked on the raw answer above.)
      expect(capabilities.extensions[EVENTS]).toEqual({ listChanged: true });
      const list = await client.request(
        { method: 'events/list', params: {} },
        z.object({ events: z.array(z.object({ name: z.string() }).passthrough()) }),
      );
      expect(list.events.map((type) => type.name)).toContain('incident.opened');
      const polled = z.object({
        events: z.array(z.unknown()),
        cursor: z.string(),
        truncated: z.boolean(),
        hasMore: z.boolean(),
        nextPollMs: z.number(),
      });
      const first = await client.request(
        { method: 'events/poll', params: { name: 'incident.opened', cursor: null } },
        polled,
      );
      await emitter(server.app).emit('incident.opened', {
        id: 'OC-1',
        severity: 'P2',
        service: 'client',
        title: 'official',
      });
      const next = await client.request(
        { method: 'events/poll', params: { name: 'incident.opened', cursor: first.cursor } },
        polled,
      );
      expect(next.events).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('E-12, E-44: emit refuses at the source what cannot be delivered: an unknown type, data that is not an object, an eventId with a ".", more than 256 KiB', async () => {
    const events = emitter(server.app);
    await expect(events.emit('no.such.type', {})).rejects.toThrow(/no event type named/);
    await expect(events.emit('incident.opened', [] as unknown as object)).rejects.toThrow(/JSON object/);
    await expect(events.emit('incident.opened', { id: 'x' }, { eventId: 'evt.with.dots' })).rejects.toThrow(/eventId/);
    await expect(events.emit('incident.opened', { id: 'x', title: 'x'.repeat(300 * 1024) })).rejects.toThrow(/bytes/);
    await expect(events.emit('incident.opened', { id: 'x' }, { timestamp: 'not a date' })).rejects.toThrow(/timestamp/);
  });

  it('E-5: every events result carries resultType "complete"', async () => {
    for (const [method, params] of [
      ['events/list', {}],
      ['events/poll', { name: 'incident.opened', cursor: null }],
    ] as const) {
      expect(resultOf(await eventsPost(server.mcpUrl, method, params)).resultType).toBe('complete');
    }
  });
});

describe.each(ADAPTERS)('events: replay window and expired cursors (%s)', (adapter) => {
  let server: RunningApp;

  beforeAll(async () => {
    server = await startApp(adapter, {
      imports: [EventsFixtureModule.forRoot({ pageSize: 2, events: { cursorTtlMs: 1_000 } })],
    });
  });

  afterAll(() => server?.close());

  it('E-6: events/list pages with cursor and nextCursor (pageSize 2), and the last page has no nextCursor', async () => {
    const first = resultOf(await eventsPost(server.mcpUrl, 'events/list', {}));
    expect(first.events.map((type: { name: string }) => type.name)).toEqual(['incident.opened', 'deploy.finished']);
    expect(typeof first.nextCursor).toBe('string');
    const second = resultOf(await eventsPost(server.mcpUrl, 'events/list', { cursor: first.nextCursor }));
    expect(second.events.map((type: { name: string }) => type.name)).toEqual(['billing.charge']);
    expect(second).not.toHaveProperty('nextCursor');
    // A cursor of another list is not one of this list's.
    const tools = resultOf(await eventsPost(server.mcpUrl, 'tools/list', {}));
    expect(tools).not.toHaveProperty('nextCursor');
    errorOf(
      await eventsPost(server.mcpUrl, 'events/list', { cursor: Buffer.from('tools:2').toString('base64url') }),
      -32602,
    );
  });

  it('E-19: a cursor older than events.cursorTtlMs is -32602 with data.reason saying to start again', async () => {
    const cursor = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', { name: 'incident.opened', cursor: null }),
    ).cursor;
    await sleep(1_100);
    const error = errorOf(await eventsPost(server.mcpUrl, 'events/poll', { name: 'incident.opened', cursor }), -32602);
    expect(error.data.reason).toMatch(/^expired/);
  });

  it('E-50: a runtime type with a replay window of 50 ms: a cursor behind the window resumes truncated', async () => {
    const types = server.app.get(McpEventTypes);
    types.register({ name: 'short.window', replay: { windowMs: 50, maxEvents: 100 } });
    const start = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', { name: 'short.window', cursor: null }),
    ).cursor;
    await emitter(server.app).emit('short.window', { n: 1 });
    await sleep(90);
    await emitter(server.app).emit('short.window', { n: 2 });
    const read = resultOf(await eventsPost(server.mcpUrl, 'events/poll', { name: 'short.window', cursor: start }));
    expect(read.truncated).toBe(true);
    expect(read.events.map((event: { data: { n: number } }) => event.data.n)).toEqual([2]);
    types.remove('short.window');
  });
});
