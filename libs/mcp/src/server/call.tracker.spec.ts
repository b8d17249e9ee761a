import { describe, expect, it } from 'vitest';
import { resolvedOptions } from '../../../../test/support/resolved-options.factory.js';
import { thrown } from '../../../../test/support/thrown.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { CallCancellation } from '../protocol/call-cancellation.js';
import type { McpError } from '../protocol/mcp.error.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import { McpCallTracker, type TrackedCall } from './call.tracker.js';
import { errorResponse } from './mcp.dispatcher.js';

const trackerWith = (options: Partial<McpModuleOptions>) => new McpCallTracker(resolvedOptions(options));

/** The refusal `admit` throws. */
const refusalOf = (admit: () => unknown) => thrown<McpError>(admit);

describe('McpCallTracker: calls-in-flight caps', () => {
  it('defaults: 1,000 in total, 128 per principal and per address', () => {
    const options = resolvedOptions();
    expect([
      options.maxCallsInFlight,
      options.maxCallsInFlightPerPrincipal,
      options.maxCallsInFlightPerAddress,
    ]).toEqual([1_000, 128, 128]);
    expect(() => resolvedOptions({ maxCallsInFlightPerPrincipal: 0 })).toThrow(/maxCallsInFlightPerPrincipal/);
  });

  it('refuses a principal past its share with 429, and the server past its total with 503, both with retryAfterSeconds', () => {
    const tracker = trackerWith({ maxCallsInFlight: 3, maxCallsInFlightPerPrincipal: 2 });
    tracker.admit('alice', '10.0.0.1');
    tracker.admit('alice', '10.0.0.2');
    const perPrincipal = refusalOf(() => tracker.admit('alice', '10.0.0.3'));
    expect([perPrincipal.httpStatus, perPrincipal.code, perPrincipal.data]).toEqual([
      429,
      -32603,
      { retryAfterSeconds: 1 },
    ]);
    expect(perPrincipal.message).toBe(
      'Too many calls in flight for this principal (maxCallsInFlightPerPrincipal: 2); wait for one to finish or retry after 1 s',
    );
    tracker.admit('bob', '10.0.0.1');
    const total = refusalOf(() => tracker.admit('carol', '10.0.0.4'));
    expect([total.httpStatus, total.code, total.data]).toEqual([503, -32603, { retryAfterSeconds: 1 }]);
    expect(total.message).toBe('Too many calls in flight on this server (maxCallsInFlight: 3); retry after 1 s');
    expect(tracker.counted).toBe(3);
  });

  it('counts anonymous callers by address; a caller whose address is gone shares one "unknown" share', () => {
    const tracker = trackerWith({ maxCallsInFlightPerAddress: 1 });
    tracker.admit(undefined, '10.0.0.1');
    const refusal = refusalOf(() => tracker.admit(undefined, '10.0.0.1'));
    expect([refusal.httpStatus, refusal.message]).toEqual([
      429,
      expect.stringContaining('maxCallsInFlightPerAddress: 1'),
    ]);
    tracker.admit(undefined, undefined);
    expect(refusalOf(() => tracker.admit(undefined, undefined)).httpStatus).toBe(429);
  });

  it('gives the slot back when the call is untracked, once, however it ended', async () => {
    const tracker = trackerWith({ maxCallsInFlightPerPrincipal: 1, callTimeoutMs: 20, shutdownTimeoutMs: 10 });
    const track = (id: number, timeout = true) => {
      const channel = new ResponseChannel();
      const call: TrackedCall = {
        id,
        channel,
        cancellation: new CallCancellation(),
        lease: tracker.admit('alice', undefined),
        // As the runner's RunningCall does, in the 2026-07-28 error shape.
        respond: (outcome) =>
          channel.respond(
            outcome.ok ? { jsonrpc: '2.0', id, result: outcome.result } : errorResponse(id, outcome.error),
          ),
      };
      tracker.add(call, timeout);
      return call;
    };

    // Answered.
    const answered = track(1);
    tracker.untrack(answered);
    tracker.untrack(answered);
    expect(tracker.counted).toBe(0);

    // Timed out: released by the timer, whatever the handler does later.
    const timedOut = track(2);
    const channel = timedOut.channel;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(channel.isFinished).toBe(true);
    expect(tracker.counted).toBe(0);
    expect(tracker.countedFor({ principal: 'alice' })).toBe(0);
    // Its handler returning later changes nothing.
    const next = track(3, false);
    tracker.untrack(timedOut);
    expect(tracker.countedFor({ principal: 'alice' })).toBe(1);

    // Answered by the drain on shutdown (no timeout applies to this one).
    await tracker.drain();
    expect(next.channel.isFinished).toBe(true);
    expect([tracker.counted, tracker.size]).toEqual([0, 0]);
  });
});
