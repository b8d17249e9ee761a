import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { CallCancellation } from '../protocol/call-cancellation.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type { JsonRpcId } from '../protocol/json-rpc.interface.js';
import type { ResponseChannel } from '../protocol/response-channel.js';
import {
  AdmissionQuota,
  type AdmissionKey,
  type AdmissionLease,
  type AdmissionRefusal,
} from '../protocol/admission-quota.js';
import type { CallOutcome } from './call-outcome.interface.js';

/** Seconds a caller refused for load is told to wait (`Retry-After`, and `error.data.retryAfterSeconds`). */
export const CALLS_RETRY_AFTER_SECONDS = 1;

/** The per-address key of a caller whose connection has no address any more. */
const UNKNOWN_ADDRESS = 'unknown';

/**
 * One call in flight: the record its caller built and handed to `add` (the call runner's `RunningCall`, so that a call
 * costs one object).
 */
export interface TrackedCall {
  readonly id: JsonRpcId;
  readonly channel: ResponseChannel;
  readonly cancellation: CallCancellation;
  /** Sends the call's final response for `outcome` (the runner's `RunningCall`: in the shapes of the call's wire). */
  respond(outcome: CallOutcome): void;
  /** When the call times out (`performance.now()` ms); set by the tracker, absent when `callTimeoutMs` does not apply. */
  deadline?: number;
  /** Transport-specific work when the server starts closing (e.g. no keep-alive after this response). */
  onShutdown?(): void;
  /** Transport-specific work when the shutdown deadline passed with the call still open. */
  onDeadline?(): void;
  /** The call's slot of the calls-in-flight caps, given back when the call is untracked. */
  readonly lease?: AdmissionLease;
}

/**
 * The calls in flight, whatever their transport: enforces the per-call timeout and drains them on shutdown.
 *
 * - Timeout (`callTimeoutMs`): the call's `ctx.signal` aborts and the client gets `-32603` at once; whatever the
 *   handler returns later is dropped.
 * - Shutdown: every signal aborts so handlers can wind down, and the server waits for their answers up to
 *   `shutdownTimeoutMs`; calls still open then are answered with `-32603`.
 * - Fair shares (`maxCallsInFlight`, `…PerPrincipal`, `…PerAddress`): the call runner (`McpCallRunner`) `admit`s a
 *   call before it builds anything for it and hands the slot over with the call; it is given back when the call is
 *   untracked — its answer went out, it timed out (even if its handler ignores the signal), or the drain answered
 *   it. A client that went away aborts the signal; the slot comes back when the handler stops, or at the timeout.
 *   HTTP calls are admitted, on both wires; stdio calls are not (one client, which owns the process), nor are listen
 *   streams (capped by their own options).
 *
 * Every call has the same time limit, so deadlines come in the order calls started: one timer, armed for the
 * oldest call, serves them all (instead of a timer per call, created and cleared on the hot path).
 */
@Injectable()
export class McpCallTracker {
  private readonly calls = new Set<TrackedCall>();
  /** The calls with a deadline, oldest first. */
  private readonly timed = new Set<TrackedCall>();
  private timer?: NodeJS.Timeout;
  private drained?: () => void;
  private readonly quota: AdmissionQuota;

  constructor(private readonly options: McpResolvedOptions) {
    this.quota = new AdmissionQuota({
      total: options.maxCallsInFlight,
      perPrincipal: options.maxCallsInFlightPerPrincipal,
      perAddress: options.maxCallsInFlightPerAddress,
    });
  }

  /** Calls in flight right now (admitted or not, listen streams included). */
  get size(): number {
    return this.calls.size;
  }

  /** Calls holding a slot of the calls-in-flight caps right now. */
  get counted(): number {
    return this.quota.size;
  }

  /** Slots this caller (a principal, or an anonymous remote address) holds right now. */
  countedFor(caller: AdmissionKey): number {
    return this.quota.heldBy(caller);
  }

  /**
   * Takes a slot of the calls-in-flight caps for a caller, kept on the call's record until it is no longer in flight
   * (the runner's `RunningCall.lease`). Throws the refusal: `-32603` with HTTP
   * 503 when the server is full (`maxCallsInFlight`), 429 when this caller holds its share already; both carry
   * `data.retryAfterSeconds`, which the HTTP writer repeats as `Retry-After`.
   */
  admit(principal: string | undefined, address: string | undefined): AdmissionLease {
    // A socket already closed has no address: such anonymous callers are counted under one key, not skipped.
    const admission = this.quota.tryAcquire({ principal, address: address ?? UNKNOWN_ADDRESS });
    if ('refused' in admission) throw this.refusal(admission.refused);
    return admission.lease;
  }

  /**
   * Tracks a call record its caller built (the call runner's), until `untrack`. `timed`: whether `callTimeoutMs`
   * applies (not to long-lived streams such as `subscriptions/listen`).
   */
  add(call: TrackedCall, timed: boolean): void {
    const limit = this.options.callTimeoutMs;
    this.calls.add(call);
    if (timed && limit > 0) {
      call.deadline = performance.now() + limit;
      this.timed.add(call);
      this.timer ??= this.armTimer(limit);
    }
  }

  /** The call's final response went out: it is no longer in flight. */
  untrack(call: TrackedCall): void {
    call.lease?.release();
    this.timed.delete(call);
    if (this.calls.delete(call) && this.calls.size === 0) this.drained?.();
  }

  private armTimer(delay: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.expire(), Math.max(1, Math.ceil(delay)));
    timer.unref();
    return timer;
  }

  /** Times out every call past its deadline, then waits for the next oldest one. */
  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const call of this.timed) {
      if (call.deadline! > now) {
        this.timer = this.armTimer(call.deadline! - now);
        return;
      }
      const limit = this.options.callTimeoutMs;
      call.cancellation.abort(new Error(`The call timed out after ${limit} ms`));
      call.respond({
        ok: false,
        error: new McpError(McpErrorCode.InternalError, `Request timed out after ${limit} ms`),
      });
      // Answered: no longer in flight, whatever the handler does now.
      this.untrack(call);
    }
  }

  /** Aborts every call, waits for their answers up to the deadline, then answers the rest. */
  async drain(): Promise<void> {
    for (const call of this.calls) {
      call.onShutdown?.();
      call.cancellation.abort(new Error('The server is shutting down'));
    }
    if (this.calls.size > 0) {
      await new Promise<void>((resolve) => {
        const deadline = setTimeout(resolve, this.options.shutdownTimeoutMs);
        this.drained = () => {
          clearTimeout(deadline);
          resolve();
        };
      });
    }
    for (const call of [...this.calls]) {
      this.end(call);
      call.onDeadline?.();
    }
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Answers a call the server stops serving (the drain's deadline, a connection closing under it) with `-32603`; it is
   * no longer in flight. Its handler may still finish: what it returns is dropped.
   */
  end(call: TrackedCall): void {
    call.respond({
      ok: false,
      error: new McpError(McpErrorCode.InternalError, 'The server shut down before the request completed'),
    });
    this.untrack(call);
  }

  /** The server is full (503), or this caller holds its share already (429); both say when to retry. */
  private refusal(refused: AdmissionRefusal): McpError {
    const data = { retryAfterSeconds: CALLS_RETRY_AFTER_SECONDS };
    const retry = `retry after ${CALLS_RETRY_AFTER_SECONDS} s`;
    if (refused === 'total') {
      const limit = this.options.maxCallsInFlight;
      return new McpError(
        McpErrorCode.InternalError,
        `Too many calls in flight on this server (maxCallsInFlight: ${limit}); ${retry}`,
        data,
        503,
      );
    }
    const [who, option, limit] =
      refused === 'principal'
        ? ['for this principal', 'maxCallsInFlightPerPrincipal', this.options.maxCallsInFlightPerPrincipal]
        : ['from this address', 'maxCallsInFlightPerAddress', this.options.maxCallsInFlightPerAddress];
    return new McpError(
      McpErrorCode.InternalError,
      `Too many calls in flight ${who} (${option}: ${limit}); wait for one to finish or ${retry}`,
      data,
      429,
    );
  }
}
