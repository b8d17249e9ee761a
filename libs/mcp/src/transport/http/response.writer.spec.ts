import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Observable } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallCancellation } from '../../protocol/call-cancellation.js';
import type { ChannelMessage } from '../../protocol/response-channel.js';
import { ResponseChannel } from '../../protocol/response-channel.js';
import { type AcceptedMediaTypes, type QueueBounds, ResponseWriter } from './response.writer.js';

/** Every RxJS Subject the library creates, with what was published to it. */
const subjects = vi.hoisted(() => ({ created: [] as { published: ChannelMessage['type'][] }[] }));

vi.mock('rxjs', async (importOriginal) => {
  const rxjs = await importOriginal<typeof import('rxjs')>();
  class CountedSubject<T> extends rxjs.Subject<T> {
    constructor() {
      super();
      const record = { published: [] as ChannelMessage['type'][] };
      subjects.created.push(record);
      // Wraps whatever `next` the created subject has (a subclass may have its own).
      const next = this.next.bind(this);
      this.next = (value: T) => {
        record.published.push((value as ChannelMessage).type);
        next(value);
      };
    }
  }
  return { ...rxjs, Subject: CountedSubject };
});

const BOUNDS: QueueBounds = { maxFrames: 128, maxBytes: 65_536, overflow: 'coalesce' };
const BOTH: AcceptedMediaTypes = { json: true, sse: true };

/** A real HTTP server whose requests the test answers through a channel and a writer. */
let server: Server;
let url: string;
let onRequest: (response: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((_request, response) => onRequest(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  subjects.created.length = 0;
  vi.restoreAllMocks();
});

/** Opens a request; `answer` drives the channel once the writer is connected to the response. */
function exchange(
  answer: (channel: ResponseChannel) => void,
  accepted = BOTH,
  cancellation?: CallCancellation,
): Promise<Response> {
  onRequest = (response) => {
    const channel = new ResponseChannel();
    new ResponseWriter(channel, response, accepted, BOUNDS, cancellation);
    answer(channel);
  };
  return fetch(url, { method: 'POST' });
}

const result = (id: number) => ({ jsonrpc: '2.0' as const, id, result: { content: [] } });
const progress = (value: number) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/progress',
  params: { progressToken: 't', progress: value },
});

describe('ResponseWriter', () => {
  it('the JSON path (a call that answers without notifying) creates no Subject, no Observable and no subscription', async () => {
    const subscribe = vi.spyOn(Observable.prototype, 'subscribe');
    const response = await exchange((channel) => {
      channel.keepAlive(); // no effect before streaming
      channel.respond(result(1));
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(result(1));
    expect(subjects.created).toHaveLength(0);
    expect(subscribe).not.toHaveBeenCalled();

    // An error answered first keeps its HTTP status, on the same path.
    const refused = await exchange((channel) =>
      channel.respond({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params' } }, 400),
    );
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.code).toBe(-32602);
    expect(subjects.created).toHaveLength(0);
    expect(subscribe).not.toHaveBeenCalled();
  });

  it('at the first notification, the call’s messages flow through one Subject, created then, mapped to the SSE response', async () => {
    let subjectsBeforeNotifying = -1;
    const response = await exchange((channel) => {
      subjectsBeforeNotifying = subjects.created.length;
      channel.notify(progress(1));
      channel.notify(progress(2));
      channel.keepAlive();
      setTimeout(() => channel.respond(result(3)), 5);
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    expect(
      frames.filter((frame) => frame.startsWith('event: message')).map((frame) => JSON.parse(frame.split('data: ')[1])),
    ).toEqual([progress(1), progress(2), result(3)]);
    expect(subjectsBeforeNotifying).toBe(0);
    expect(subjects.created).toHaveLength(1);
    expect(subjects.created[0].published).toEqual(['notification', 'notification', 'keepalive', 'response']);
  });

  it('a client that cannot read SSE gets only the final response, as JSON', async () => {
    const response = await exchange(
      (channel) => {
        channel.notify(progress(1));
        channel.respond(result(4));
      },
      { json: true, sse: false },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(result(4));
  });

  it('a client that goes away mid-stream abandons the channel and cancels the call', async () => {
    const cancellation = new CallCancellation();
    let channel!: ResponseChannel;
    const controller = new AbortController();
    const streaming = new Promise<Response>((resolve, reject) => {
      onRequest = (raw) => {
        channel = new ResponseChannel();
        new ResponseWriter(channel, raw, BOTH, BOUNDS, cancellation);
        channel.notify(progress(1));
      };
      fetch(url, { method: 'POST', signal: controller.signal }).then(resolve, reject);
    });
    const opened = await streaming;
    expect(opened.headers.get('content-type')).toBe('text/event-stream');
    controller.abort();
    await vi.waitFor(() => expect(channel.isFinished).toBe(true));
    expect(cancellation.aborted).toBe(true);
    expect(channel.notify(progress(2))).toBe(false);
  });
});
