import { Test, type TestingModule } from '@nestjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CallLatch, LatchResources, LatchTools } from '../../../../test/fixtures/calls-latch.fixture.js';
import { RecordingLogger } from '../../../../test/support/recording.logger.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpLegacyWireService } from '../legacy/legacy-wire.service.js';
import { McpLegacyWire } from '../legacy/legacy-wire.profile.js';
import { LegacySession } from '../legacy/legacy-session.js';
import type { LegacyCallRequest } from '../legacy/legacy-call-request.interface.js';
import { McpModule } from '../mcp.module.js';
import type { JsonObject, JsonRpcErrorResponse, JsonRpcResultResponse } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { ChannelMessage } from '../protocol/response-channel.js';
import { McpCallRunner } from './call.runner.js';
import { McpCallTracker } from './call.tracker.js';
import type { CallPort } from './call-port.interface.js';
import type { CallRequest } from './call-request.interface.js';
import type { RunningCall } from './running-call.js';
import { McpModernWire } from './modern-wire.profile.js';
import type { McpWireProfile } from './wire-profile.interface.js';

/** A port that records what the runner does with its calls. */
class RecordingPort implements CallPort {
  readonly events: string[] = [];
  readonly sent: ChannelMessage[] = [];
  readonly calls: RunningCall[] = [];

  open(call: RunningCall): void {
    this.events.push(`open ${call.id}`);
    this.calls.push(call);
    call.channel.connect({ next: (message) => this.sent.push(message), complete: () => undefined });
  }
  close(call: RunningCall): void {
    this.events.push(`close ${call.id}`);
  }
  onShutdown(call: RunningCall): void {
    this.events.push(`shutdown ${call.id}`);
  }
  onDeadline(call: RunningCall): void {
    this.events.push(`deadline ${call.id}`);
  }

  /** The final responses sent, in order. */
  responses(): Array<{ message: JsonRpcResultResponse | JsonRpcErrorResponse; httpStatus: number }> {
    return this.sent.flatMap((sent) =>
      sent.type === 'response' ? [{ message: sent.message, httpStatus: sent.httpStatus }] : [],
    );
  }
}

const META = { protocolVersion: '2026-07-28', clientCapabilities: {}, raw: {} };

/** The 2026-07-28 wire of the module under test, set by `start`. */
let modern: McpWireProfile;

/** A 2026-07-28 request for the runner. */
function request(id: number, method: string, params: JsonObject = {}, extra: Partial<CallRequest> = {}): CallRequest {
  return { origin: 'in-process', wire: modern, id, method, params, meta: META, admit: false, ...extra };
}

const tool = (name: string) => ({ name, arguments: {} });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('McpCallRunner', () => {
  let moduleRef: TestingModule | undefined;
  let runner: McpCallRunner;
  let tracker: McpCallTracker;
  let latch: CallLatch;

  async function start(options: Partial<McpModuleOptions> = {}): Promise<void> {
    moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'runner', version: '1.0.0', ...options })],
      providers: [CallLatch, LatchTools, LatchResources],
    }).compile();
    // Handlers that stop on their signal throw its reason, which Nest logs: not what these tests look at.
    moduleRef.useLogger(new RecordingLogger());
    await moduleRef.init();
    runner = moduleRef.get(McpCallRunner);
    tracker = moduleRef.get(McpCallTracker);
    latch = moduleRef.get(CallLatch);
    modern = moduleRef.get(McpModernWire);
  }

  afterEach(async () => {
    latch?.open();
    await moduleRef?.close();
    moduleRef = undefined;
  });

  it('runs a call to its 2026-07-28 response, then releases it: open, respond, close', async () => {
    await start();
    const port = new RecordingPort();
    await runner.run(request(1, 'tools/call', tool('ping')), port);
    const [response] = port.responses();
    expect(response.httpStatus).toBe(200);
    expect((response.message as JsonRpcResultResponse).result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'pong' }],
    });
    expect(port.events).toEqual(['open 1', 'close 1']);
    expect(tracker.size).toBe(0);
  });

  it('answers an unknown method -32601 (HTTP 404) through the port, tracked like any call', async () => {
    await start();
    const port = new RecordingPort();
    await runner.run(request(2, 'tasks/get'), port);
    const [response] = port.responses();
    expect([response.httpStatus, (response.message as JsonRpcErrorResponse).error.code]).toEqual([404, -32601]);
    expect(port.events).toEqual(['open 2', 'close 2']);
  });

  it('admits counted calls by the calls-in-flight caps: the refusal is thrown before anything is opened', async () => {
    await start({ maxCallsInFlightPerPrincipal: 1 });
    const port = new RecordingPort();
    const held = runner.run(request(1, 'tools/call', tool('hold'), { admit: true, principal: 'alice' }), port);
    await settle();
    expect(tracker.countedFor({ principal: 'alice' })).toBe(1);

    let refusal: unknown;
    try {
      void runner.run(request(2, 'tools/call', tool('ping'), { admit: true, principal: 'alice' }), port);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(McpError);
    expect([(refusal as McpError).httpStatus, (refusal as McpError).data]).toEqual([429, { retryAfterSeconds: 1 }]);
    expect(port.events).toEqual(['open 1']);

    // Another caller, and an uncounted origin (stdio, the testing kit), are served meanwhile.
    await runner.run(request(3, 'tools/call', tool('ping'), { admit: true, principal: 'bob' }), port);
    await runner.run(request(4, 'tools/call', tool('ping'), { principal: 'alice' }), port);
    latch.open();
    await held;
    expect(tracker.counted).toBe(0);
    await runner.run(request(5, 'tools/call', tool('ping'), { admit: true, principal: 'alice' }), port);
    expect(port.responses().map((response) => response.httpStatus)).toEqual([200, 200, 200, 200]);
  });

  it('times a call out: its signal aborts, it is answered -32603 and released at once; close waits for the handler', async () => {
    await start({ callTimeoutMs: 50, maxCallsInFlightPerPrincipal: 1 });
    const port = new RecordingPort();
    const done = runner.run(request(1, 'tools/call', tool('stubborn'), { admit: true, principal: 'alice' }), port);
    await sleep(120);
    const [response] = port.responses();
    expect((response.message as JsonRpcErrorResponse).error).toMatchObject({
      code: -32603,
      message: 'Request timed out after 50 ms',
    });
    expect(port.calls[0].cancellation.aborted).toBe(true);
    expect([tracker.size, tracker.counted]).toEqual([0, 0]);
    expect(port.events).toEqual(['open 1']);
    latch.open();
    await done;
    expect(port.events).toEqual(['open 1', 'close 1']);
    expect(port.responses()).toHaveLength(1);
  });

  it('a stream (subscriptions/listen) is neither timed nor counted, and ends when its signal aborts', async () => {
    await start({ callTimeoutMs: 50, maxCallsInFlight: 1 });
    const port = new RecordingPort();
    const listening = runner.run(request(7, 'subscriptions/listen', {}, { admit: true, principal: 'alice' }), port);
    await sleep(120);
    expect(port.calls[0].streaming).toBe(true);
    expect([tracker.size, tracker.counted]).toEqual([1, 0]);
    expect(port.responses()).toEqual([]);
    // The one slot of the server is still free for a call.
    await runner.run(request(8, 'tools/call', tool('ping'), { admit: true, principal: 'alice' }), port);
    port.calls[0].cancellation.abort(new Error('client gone'));
    await listening;
    expect(port.responses().map((response) => response.message.id)).toEqual([8, 7]);
    expect(tracker.size).toBe(0);
  });

  it('drains once on shutdown: ports hear onShutdown, cooperative calls answer, stubborn ones get -32603 at the deadline', async () => {
    await start({ shutdownTimeoutMs: 80 });
    const port = new RecordingPort();
    const cooperative = runner.run(request(1, 'tools/call', tool('hold')), port);
    const stubborn = runner.run(request(2, 'tools/call', tool('stubborn')), port);
    await settle();
    const drain = runner.drain();
    expect(runner.drain()).toBe(drain);
    await drain;
    await cooperative;
    expect(port.events.filter((event) => event.startsWith('shutdown')).sort()).toEqual(['shutdown 1', 'shutdown 2']);
    expect(port.events).toContain('deadline 2');
    expect(port.events).not.toContain('deadline 1');
    const byId = new Map(port.responses().map((response) => [response.message.id, response.message]));
    // The handler gave up on its signal: that is the call's end, not a failure (no isError, nothing logged).
    expect((byId.get(1) as JsonRpcErrorResponse).error).toEqual({
      code: -32603,
      message: 'The call was cancelled (The server is shutting down)',
    });
    expect((byId.get(2) as JsonRpcErrorResponse).error).toEqual({
      code: -32603,
      message: 'The server shut down before the request completed',
    });
    expect(tracker.size).toBe(0);
    latch.open();
    await stubborn;
  });

  it("answers in the shapes of the call's wire: 2025-11-25 shapes, the session knows the call, live client requests", async () => {
    await start();
    const wire = moduleRef!.get(McpLegacyWireService);
    const legacy = moduleRef!.get(McpLegacyWire);
    const port = new RecordingPort();
    const transport = port;
    const session = new LegacySession('2025-11-25', {}, undefined, undefined);
    const legacyRequest = (id: number, method: string, params: JsonObject = {}): LegacyCallRequest => ({
      ...request(id, method, params),
      wire: legacy,
      meta: wire.callMeta(session, params),
      session,
    });

    await runner.run(legacyRequest(1, 'tools/call', tool('ping')), port);
    await runner.run(legacyRequest(2, 'tasks/get'), port);
    const held = runner.run(legacyRequest(3, 'tools/call', tool('hold')), port);
    await settle();
    // notifications/cancelled reaches the call through its session.
    session.cancelCall(3, 'changed my mind');
    await held;

    const [ok, unknown] = transport.responses();
    expect(ok.message).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'pong' }] } });
    expect([unknown.httpStatus, (unknown.message as JsonRpcErrorResponse).error.code]).toEqual([200, -32601]);
    expect(transport.calls[2].cancellation.aborted).toBe(true);
    expect(transport.events).toEqual(['open 1', 'close 1', 'open 2', 'close 2', 'open 3', 'close 3']);
    expect(legacy.liveRequests(transport.calls[0] as RunningCall<LegacyCallRequest>)).toBeDefined();
  });
});
