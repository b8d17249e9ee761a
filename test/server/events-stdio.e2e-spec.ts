import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpEvents } from 'nest-mcp';
import { IncidentEvents } from '../fixtures/events.fixture.js';
import { McpModule } from 'nest-mcp';
import { modernMeta, startInProcessStdio, type InProcessStdio } from '../support/stdio.harness.js';
import { SEP_CODES, SUB } from '../support/events.util.js';
import { sleep } from '../support/wait.util.js';

/**
 * The events extension over stdio (2026-07-28), where its modes make sense: `events/list`, `events/poll`, and
 * `events/stream` as notifications on stdout until `notifications/cancelled` (no closing result after a cancel,
 * SEP-3415 "Lifecycle"). Webhooks need an authenticated principal, which stdio has not: `Forbidden`.
 */

describe('events over stdio', () => {
  let stdio: InProcessStdio;
  let id = 1;
  const request = (method: string, params: Record<string, unknown>) => {
    const requestId = id++;
    stdio.send({ jsonrpc: '2.0', id: requestId, method, params: { ...params, _meta: modernMeta() } });
    return requestId;
  };

  beforeAll(async () => {
    stdio = await startInProcessStdio({
      imports: [McpModule.forRoot({ name: 'events-stdio', version: '1.0.0' })],
      providers: [IncidentEvents],
    });
  });

  afterAll(() => stdio?.close());

  it('events/list and events/poll answer on stdout', async () => {
    const list = await stdio.output.response(request('events/list', {}));
    expect(list.result.events.map((type: { name: string }) => type.name)).toContain('incident.opened');
    const first = await stdio.output.response(request('events/poll', { name: 'incident.opened', cursor: null }));
    await stdio.moduleRef
      .get(McpEvents)
      .emit('incident.opened', { id: 'IO-1', severity: 'P1', service: 'api', title: 'stdio' });
    const next = await stdio.output.response(
      request('events/poll', { name: 'incident.opened', cursor: first.result.cursor }),
    );
    expect(next.result.events.map((event: { data: { incidentId: string } }) => event.data.incidentId)).toEqual([
      'IO-1',
    ]);
  });

  it('E-21, E-24: events/stream writes active then events, tagged with the request id; after notifications/cancelled nothing more is written for it', async () => {
    const streamId = request('events/stream', { name: 'incident.opened' });
    const active = await stdio.output.waitFor(
      (message) => message.method === 'notifications/events/active' && message.params._meta[SUB] === streamId,
    );
    expect(active.params.truncated).toBe(false);
    await stdio.moduleRef
      .get(McpEvents)
      .emit('incident.opened', { id: 'IO-2', severity: 'P2', service: 'api', title: 'live' });
    const event = await stdio.output.waitFor(
      (message) => message.method === 'notifications/events/event' && message.params._meta[SUB] === streamId,
    );
    expect(event.params.data.incidentId).toBe('IO-2');
    stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: streamId } });
    await sleep(50);
    const before = stdio.output.messages.length;
    await stdio.moduleRef
      .get(McpEvents)
      .emit('incident.opened', { id: 'IO-3', severity: 'P2', service: 'api', title: 'after cancel' });
    await sleep(100);
    const later = stdio.output.messages.slice(before);
    expect(later.filter((message) => message.params?._meta?.[SUB] === streamId || message.id === streamId)).toEqual([]);
  });

  it('E-27: events/subscribe over stdio has no authenticated principal: Forbidden', async () => {
    const answer = await stdio.output.response(
      request('events/subscribe', {
        name: 'incident.opened',
        delivery: {
          mode: 'webhook',
          url: 'https://hooks.example.com/h',
          secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        },
      }),
    );
    expect(answer.error.code).toBe(SEP_CODES.Forbidden);
  });
});
