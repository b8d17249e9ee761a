import type { INestApplication } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpEvents, McpEventTypes } from 'nest-mcp';
import {
  InMemoryEventStore,
  type McpEventReadFrom,
  type McpEventReadOptions,
  type McpEventReadResult,
} from 'nest-mcp/backend';
import { EventsFixtureModule } from '../fixtures/events.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { errorOf, eventsPost, resultOf, SEP_CODES, SUB } from '../support/events.util.js';
import { openEventsStream, type EventsStream } from '../support/events-wire.validator.js';
import { listen } from '../support/sse-stream.reader.js';
import { mcpPost } from '../support/raw-request.util.js';
import { sleep, until } from '../support/wait.util.js';
import { EventStreamService } from '../../libs/mcp/src/events/event-stream.service.js';

/**
 * `events/stream` (SEP-3415, "Push-Based Delivery") over real HTTP on both adapters, read frame by frame as it
 * streams: validation before the stream opens, the `active` frame first, events in order through the matcher, data
 * heartbeats that carry the cursor, replay from a cursor, termination when the type is removed, the closing result on
 * shutdown, the stream cap, exemption from the call timeout, and `notifications/events/list_changed` on listen
 * streams. Every frame is checked against the extension's shapes as it arrives.
 */

const emit = (app: INestApplication, name: string, data: object, eventId?: string) =>
  app.get(McpEvents).emit(name, data, eventId ? { eventId } : {});

describe.each(ADAPTERS)('events/stream (%s)', (adapter) => {
  let server: RunningApp;
  const open: EventsStream[] = [];

  beforeAll(async () => {
    server = await startApp(adapter, {
      imports: [
        EventsFixtureModule.forRoot({ callTimeoutMs: 300, events: { heartbeatMs: 150, maxStreamsPerPrincipal: 2 } }),
      ],
    });
  });

  afterEach(async () => {
    for (const stream of open.splice(0)) {
      stream.close();
      await stream.ended;
      expect(stream.problems).toEqual([]);
    }
  });

  afterAll(() => server?.close());

  const stream = async (id: string | number, params: Record<string, unknown>, principal?: string) => {
    const opened = await openEventsStream(server.mcpUrl, id, params, principal);
    open.push(opened);
    return opened;
  };

  it('E-20: validation failures are plain JSON-RPC errors and no stream opens (unknown name, unsupported mode, bad arguments, bad cursor)', async () => {
    errorOf(await eventsPost(server.mcpUrl, 'events/stream', { name: 'nope' }), SEP_CODES.NotFound);
    errorOf(
      await eventsPost(server.mcpUrl, 'events/stream', { name: 'incident.opened', arguments: { severity: 'P7' } }),
      -32602,
    );
    errorOf(await eventsPost(server.mcpUrl, 'events/stream', { name: 'incident.opened', cursor: 'forged' }), -32602);
    server.app.get(McpEventTypes).register({ name: 'poll.only', delivery: ['poll'] });
    try {
      const error = errorOf(
        await eventsPost(server.mcpUrl, 'events/stream', { name: 'poll.only' }),
        SEP_CODES.Unsupported,
      );
      expect(error.data).toEqual({ feature: 'deliveryMode', value: 'push' });
    } finally {
      server.app.get(McpEventTypes).remove('poll.only');
    }
  });

  it('events/stream without text/event-stream in Accept is 406 (it answers only as a stream)', async () => {
    const response = await mcpPost(server.mcpUrl, {
      method: 'events/stream',
      params: { name: 'incident.opened' },
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(406);
  });

  it('E-21, E-22: the first frame is notifications/events/active {cursor, truncated:false}; events follow through the matcher; every frame is tagged with the request id, its JSON type kept (number)', async () => {
    const events = await stream(41, { name: 'incident.opened', arguments: { severity: 'P1' } });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [active] = await events.nextFrames(1);
    expect(active.method).toBe('notifications/events/active');
    expect(active.params).toMatchObject({ cursor: expect.any(String), truncated: false, _meta: { [SUB]: 41 } });
    await emit(server.app, 'incident.opened', { id: 'S-1', severity: 'P3', service: 'api', title: 'skip me' });
    await emit(
      server.app,
      'incident.opened',
      { id: 'S-2', severity: 'P1', service: 'api', title: 'DB down' },
      'evt_S-2',
    );
    const frame = await events.waitFor((message) => message.method === 'notifications/events/event', 'an event');
    expect(frame.params).toMatchObject({
      eventId: 'evt_S-2',
      name: 'incident.opened',
      data: { incidentId: 'S-2', severity: 'P1', title: 'DB down' },
      cursor: expect.any(String),
    });
    expect(frame.params!._meta![SUB]).toBe(41);
    for (const message of events.messages) expect(message.method).toMatch(/^notifications\/events\//);
  });

  it('E-21: a string request id tags every frame as that string', async () => {
    const events = await stream('sub-7', { name: 'deploy.finished' });
    const [active] = await events.nextFrames(1);
    expect(active.params).toEqual({ cursor: null, truncated: false, _meta: { [SUB]: 'sub-7' } });
    await emit(server.app, 'deploy.finished', { service: 'api', version: '1.2.3' });
    const frame = await events.waitFor((message) => message.method === 'notifications/events/event', 'an event');
    // A type without replay: every cursor is null (E-50).
    expect(frame.params).toMatchObject({
      name: 'deploy.finished',
      data: { service: 'api', version: '1.2.3' },
      cursor: null,
      _meta: { [SUB]: 'sub-7' },
    });
  });

  it('E-23, E-52: heartbeats are data frames carrying the cursor checked so far, within the configured interval, and the cursor resumes a poll', async () => {
    const events = await stream(43, { name: 'incident.opened', arguments: { service: 'quiet' } });
    await events.nextFrames(1);
    await emit(server.app, 'incident.opened', {
      id: 'Q-1',
      severity: 'P1',
      service: 'loud',
      title: 'not for this stream',
    });
    const beat = await events.waitFor(
      (message) => message.method === 'notifications/events/heartbeat' && events.messages.indexOf(message) > 0,
      'a heartbeat',
      2_000,
    );
    expect(typeof beat.params!.cursor).toBe('string');
    expect(events.comments).toBe(0);
    const resumed = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: { service: 'quiet' },
        cursor: beat.params!.cursor,
      }),
    );
    expect(resumed.events).toEqual([]);
  });

  it('E-24: the client closing the stream releases it on the server', async () => {
    const streams = server.app.get(EventStreamService);
    // The streams of earlier tests are closed by then, but their release may still be on its way.
    await until(() => streams.openStreams === 0, 3_000, 'the earlier streams to be released');
    const events = await stream(44, { name: 'incident.opened' });
    await events.nextFrames(1);
    expect(streams.openStreams).toBe(1);
    events.close();
    await until(() => streams.openStreams === 0, 3_000, 'the stream to be released');
  });

  it('E-25: events/stream is not ended by callTimeoutMs (300 ms here), unlike an ordinary request', async () => {
    const events = await stream(45, { name: 'incident.opened' });
    await events.nextFrames(1);
    await sleep(700);
    await emit(server.app, 'incident.opened', { id: 'T-1', severity: 'P2', service: 'api', title: 'still here' });
    await events.waitFor(
      (message) => message.method === 'notifications/events/event',
      'an event after the call timeout',
    );
    expect(events.messages.some((message) => message.error !== undefined)).toBe(false);
  });

  it('E-25, E-54: streams have a per-principal cap of their own: beyond it ResourceExhausted {limit:"streams", max}', async () => {
    const first = await stream(46, { name: 'incident.opened' }, 'carol');
    const second = await stream(47, { name: 'incident.opened' }, 'carol');
    await Promise.all([first.nextFrames(1), second.nextFrames(1)]);
    const refused = errorOf(
      await eventsPost(server.mcpUrl, 'events/stream', { name: 'incident.opened' }, 'carol'),
      SEP_CODES.ResourceExhausted,
    );
    expect(refused.data).toEqual({ limit: 'streams', max: 2 });
    const other = await stream(48, { name: 'incident.opened' }, 'dave');
    await other.nextFrames(1);
  });

  it('E-49, E-50: a stream from a cursor delivers the events after it, in order, then live ones; maxAgeMs past them starts truncated', async () => {
    const start = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: { service: 'replay' },
        cursor: null,
      }),
    ).cursor;
    await emit(server.app, 'incident.opened', { id: 'R-1', severity: 'P2', service: 'replay', title: 'one' });
    await emit(server.app, 'incident.opened', { id: 'R-2', severity: 'P2', service: 'replay', title: 'two' });
    const events = await stream(49, { name: 'incident.opened', arguments: { service: 'replay' }, cursor: start });
    const [active] = await events.nextFrames(1);
    expect(active.params).toMatchObject({ truncated: false });
    await emit(server.app, 'incident.opened', { id: 'R-3', severity: 'P2', service: 'replay', title: 'three' });
    await events.until(() => events.frames('notifications/events/event').length >= 3, 3_000, 'three events');
    expect(
      events
        .frames('notifications/events/event')
        .map((frame) => (frame.params!.data as { incidentId: string }).incidentId),
    ).toEqual(['R-1', 'R-2', 'R-3']);
    await sleep(40);
    const aged = await stream(50, {
      name: 'incident.opened',
      arguments: { service: 'replay' },
      cursor: start,
      maxAgeMs: 10,
    });
    const [agedActive] = await aged.nextFrames(1);
    expect(agedActive.params).toMatchObject({ truncated: true, cursor: expect.any(String) });
  });

  it('E-10, E-26: removing the type ends its streams with notifications/events/terminated (NotFound, kind event), then the closing result', async () => {
    const types = server.app.get(McpEventTypes);
    types.register({ name: 'temp.type' });
    const events = await stream(51, { name: 'temp.type' });
    await events.nextFrames(1);
    types.remove('temp.type');
    await events.ended;
    expect(events.endedByServer).toBe(true);
    const terminated = events.frames('notifications/events/terminated');
    expect(terminated).toHaveLength(1);
    expect(terminated[0].params!.error).toMatchObject({ code: SEP_CODES.NotFound, data: { kind: 'event' } });
    const last = events.messages.at(-1)!;
    expect(last).toMatchObject({ id: 51, result: { resultType: 'complete', _meta: { [SUB]: 51 } } });
  });

  it('E-9: a listen stream that asks for eventsListChanged has it acknowledged and is told of catalog changes, tagged', async () => {
    const listener = await listen(server.mcpUrl, 'listen-1', { eventsListChanged: true, toolsListChanged: true });
    try {
      const [ack] = await listener.nextFrames(1);
      expect(ack.params!.notifications).toEqual({ toolsListChanged: true, eventsListChanged: true });
      server.app.get(McpEventTypes).register({ name: 'new.type' });
      const changed = await listener.waitFor(
        (message) => message.method === 'notifications/events/list_changed',
        'list_changed',
      );
      expect(changed.params).toEqual({ _meta: { [SUB]: 'listen-1' } });
      server.app.get(McpEventTypes).remove('new.type');
    } finally {
      listener.close();
      await listener.ended;
    }
  });
});

describe.each(ADAPTERS)('events/stream at shutdown (%s)', (adapter) => {
  it('E-24: when the server closes, an open stream ends with the StreamEventsResult as its last frame', async () => {
    const server = await startApp(adapter, { imports: [EventsFixtureModule.forRoot()] });
    const events = await openEventsStream(server.mcpUrl, 60, { name: 'incident.opened' });
    await events.nextFrames(1);
    await server.close();
    await events.ended;
    expect(events.problems).toEqual([]);
    expect(events.messages.at(-1)).toMatchObject({ id: 60, result: { resultType: 'complete', _meta: { [SUB]: 60 } } });
  });
});

/** A replay log whose next reads fail on demand: a shared store that is briefly down, as a custom backend sees it. */
class FlakyEventStore extends InMemoryEventStore {
  failures = 0;

  override async read(name: string, from: McpEventReadFrom, options: McpEventReadOptions): Promise<McpEventReadResult> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('connection lost');
    }
    return super.read(name, from, options);
  }
}

describe.each(ADAPTERS)('events/stream when the log cannot be read (%s)', (adapter) => {
  const store = new FlakyEventStore();
  let server: RunningApp;

  beforeAll(async () => {
    server = await startApp(adapter, { imports: [EventsFixtureModule.forRoot({ events: { store } })] });
  });

  afterAll(() => server?.close());

  it("E-26: a failed read of the backlog is notifications/events/error (a category, not the store's message); the stream stays, replays and goes live", async () => {
    const start = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', {
        name: 'incident.opened',
        arguments: { service: 'flaky' },
        cursor: null,
      }),
    ).cursor;
    await emit(server.app, 'incident.opened', { id: 'F-1', severity: 'P1', service: 'flaky', title: 'backlog' });
    store.failures = 2;
    const events = await openEventsStream(server.mcpUrl, 70, {
      name: 'incident.opened',
      arguments: { service: 'flaky' },
      cursor: start,
    });
    try {
      await events.until(() => events.frames('notifications/events/event').length >= 1, 5_000, 'the backlog event');
      expect(events.messages[0].method).toBe('notifications/events/active');
      const errors = events.frames('notifications/events/error');
      expect(errors).toHaveLength(2);
      expect(errors[0].params!.error).toEqual({
        code: -32603,
        message: expect.stringMatching(/^UpstreamError/),
        data: { reason: 'store_unavailable' },
      });
      expect(JSON.stringify(errors)).not.toContain('connection lost');
      await emit(server.app, 'incident.opened', { id: 'F-2', severity: 'P1', service: 'flaky', title: 'live' });
      await events.until(() => events.frames('notifications/events/event').length >= 2, 3_000, 'the live event');
      expect(
        events
          .frames('notifications/events/event')
          .map((frame) => (frame.params!.data as { incidentId: string }).incidentId),
      ).toEqual(['F-1', 'F-2']);
      expect(events.problems).toEqual([]);
    } finally {
      events.close();
      await events.ended;
    }
  });

  it('E-26: a log that stays unreadable terminates the stream with -32603, then the closing result', async () => {
    const start = resultOf(
      await eventsPost(server.mcpUrl, 'events/poll', { name: 'incident.opened', cursor: null }),
    ).cursor;
    store.failures = 100;
    const events = await openEventsStream(server.mcpUrl, 71, { name: 'incident.opened', cursor: start });
    await events.ended;
    store.failures = 0;
    expect(events.frames('notifications/events/terminated')[0].params!.error).toMatchObject({
      code: -32603,
      data: { reason: 'store_unavailable' },
    });
    expect(events.messages.at(-1)).toMatchObject({ id: 71, result: { resultType: 'complete' } });
  });
});
