import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { AdmissionLease } from '../protocol/admission-quota.js';
import type { McpCallSettings } from '../protocol/call-settings.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import type { RequestTelemetry } from '../telemetry/request-telemetry.js';
import type { TelemetryTarget } from '../telemetry/telemetry-call.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { CallOutcome } from './call-outcome.interface.js';
import { McpCallTracker } from './call.tracker.js';
import type { CallPort } from './call-port.interface.js';
import type { CallRequest } from './call-request.interface.js';
import { McpDispatcher } from './mcp.dispatcher.js';
import type { McpRoute } from './mcp-route.interface.js';
import { RunningCall } from './running-call.js';

/**
 * The one place a call is admitted, run and answered, whatever started it. Its origin hands over a `CallRequest`
 * (what it knows: where the call comes from, the wire it speaks, id, method, params, `_meta`, caller, HTTP objects,
 * whether quotas apply) and a `CallPort` (where the messages go and the hooks of its transport); the runner decides
 * the rest, in this order:
 *
 * 1. the route: the one the origin looked up on the call's wire for its checks, or the wire's (an unknown method is
 *    answered `-32601`, like any other error);
 * 2. admission: a call whose origin counts calls takes a slot of the calls-in-flight caps before anything is built
 *    for it — streams (`delivery: 'stream'`) never do. A refusal (`McpError`, HTTP 429 or 503 with
 *    `data.retryAfterSeconds`) is thrown synchronously by `run`: nothing was opened, and the origin answers it the
 *    way it answers its own checks;
 * 3. a `ResponseChannel` and a `CallCancellation` (`ctx.signal`), connected through `port.open` (then the wire's
 *    `opened`);
 * 4. the `McpRequestScope` handlers see, with the call's origin, the module's call settings and the wire's live
 *    client requests;
 * 5. tracking: `callTimeoutMs` for calls answered with a response (not for streams), and the drain on shutdown;
 * 6. dispatch, then the final response, in the shapes and statuses of the call's wire (`McpWireProfile
 *    .finalResponse`), after the port added its transport's part (`beforeResponse`: the bearer challenge);
 * 7. release: no longer in flight (the slot comes back), then the wire's `closed` and `port.close`.
 *
 * Telemetry wraps all of it (ADR 0031): when an OpenTelemetry SDK records, the call gets its SERVER span before
 * admission (a refusal is a span too), the handler runs inside it, and the span and the duration metric end with the
 * outcome. Without an SDK, `McpTelemetry.start` returns undefined and nothing of it is built.
 *
 * Who uses it: the HTTP transport (both wires; counted), stdio (both wires; not counted), the testing kit (not
 * counted), and the task worker (tasks/task.worker.ts): each round of a task is a request with no HTTP objects whose
 * port connects the channel to the task store (notifications and the final response become the task's status and
 * result, read by `tasks/get`); no client is connected, so a disconnect cancels nothing.
 *
 * Cost: per call, one `RunningCall` (which carries the channel and the cancellation and is the tracker's record),
 * the scope, and the origin's request; the port and the wire are shared, and no closure is created (ADR 0015).
 */
@Injectable()
export class McpCallRunner implements BeforeApplicationShutdown {
  private draining?: Promise<void>;
  private readonly settings: McpCallSettings;

  constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly calls: McpCallTracker,
    options: McpResolvedOptions,
    private readonly registry: McpRegistry,
    private readonly telemetry: McpTelemetry,
  ) {
    this.settings = options.callSettings;
  }

  /**
   * Runs one call to its end: resolves once its handler returned and the call is no longer in flight (its answer
   * may have gone out earlier: a timeout or the drain answer for it). Throws, synchronously, only the admission
   * refusal; never rejects.
   */
  run<R extends CallRequest>(request: R, port: CallPort<R>): Promise<void> {
    const wire = request.wire;
    const route = request.route ?? wire.findRoute(request.method);
    const streaming = route?.delivery === 'stream';
    const telemetry = this.telemetry.available ? this.telemetry.start(request, this.target(request, route)) : undefined;
    let lease: AdmissionLease | undefined;
    try {
      lease = request.admit && !streaming ? this.calls.admit(request.principal, request.remoteAddress) : undefined;
    } catch (refusal) {
      telemetry?.end(refused(refusal), NOTHING_SENT);
      this.telemetry.countRefusal(refusal);
      throw refusal;
    }
    const call = new RunningCall(request, route, port, lease);
    try {
      port.open(call);
      wire.opened?.(call);
    } catch (error) {
      lease?.release();
      telemetry?.end(refused(error), NOTHING_SENT);
      throw error;
    }
    const scope: McpRequestScope = {
      id: request.id,
      method: request.method,
      params: request.params,
      meta: request.meta,
      cancellation: call.cancellation,
      channel: call.channel,
      httpRequest: request.httpRequest,
      httpResponse: request.httpResponse,
      principal: request.principal,
      accessToken: request.accessToken,
      remoteAddress: request.remoteAddress,
      origin: request.origin,
      settings: this.settings,
      liveRequests: wire.liveRequests?.(call),
      task: request.task,
      ...(telemetry && { trace: telemetry.traceIds, traceContext: telemetry.traceContext }),
    };
    this.calls.add(call, !streaming);
    if (!telemetry) return this.execute(call, scope);
    return telemetry.run(() => this.execute(call, scope, telemetry));
  }

  /**
   * Answers a call whose origin stops serving it (stdio closing at its deadline) with `-32603`; it is no longer in
   * flight. Its handler may still finish: what it returns is dropped.
   */
  end(call: RunningCall): void {
    this.calls.end(call);
  }

  /**
   * Drains the calls in flight, once (later calls get the same promise): every signal aborts, their ports hear
   * `onShutdown`, calls get `shutdownTimeoutMs` to answer, and the rest are answered `-32603` (`onDeadline`). The
   * first transport to shut down calls it (HTTP: before Nest closes its server); this provider's own hook is the
   * fallback for an application with no transport hook before it.
   */
  drain(): Promise<void> {
    this.draining ??= this.calls.drain();
    return this.draining;
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.drain();
  }

  private async execute<R extends CallRequest>(
    call: RunningCall<R>,
    scope: McpRequestScope,
    telemetry?: RequestTelemetry,
  ): Promise<void> {
    let outcome: CallOutcome | undefined;
    try {
      outcome = await this.dispatcher.execute(scope, call.route);
      call.respond(outcome);
    } finally {
      this.calls.untrack(call);
      call.request.wire.closed?.(call);
      call.port.close?.(call);
      if (telemetry) {
        const channel = call.channel;
        telemetry.end(outcome ?? INTERNAL_ERROR, {
          notifications: channel.sent,
          progress: channel.progressSent,
          sse: call.streaming || channel.sent > 0,
          cancelled: call.cancellation.aborted,
          coalesced: channel.coalescedFrames,
          dropped: channel.droppedFrames,
          overflowed: channel.overflows > 0,
        });
      }
    }
  }

  /** What telemetry needs to know of the call's target: decided here, where the route and the registry are known. */
  private target(request: CallRequest, route: McpRoute | undefined): TelemetryTarget {
    const name = request.params.name;
    let registered: string | undefined;
    if (typeof name === 'string') {
      // Only a registered name becomes part of the span name: a caller's unknown name must not mint new ones.
      if (request.method === 'tools/call' && this.registry.getTool(name)) registered = name;
      else if (request.method === 'prompts/get' && this.registry.getPrompt(name)) registered = name;
    }
    return {
      implemented: route !== undefined,
      wire: request.wire.revision,
      streaming: route?.delivery === 'stream',
      ...(registered !== undefined && { name: registered }),
    };
  }
}

const NOTHING_SENT = { notifications: 0, progress: 0, sse: false, cancelled: false } as const;
const INTERNAL: McpError = new McpError(-32603, 'Internal error');
const INTERNAL_ERROR: CallOutcome = { ok: false, error: INTERNAL };

/** The outcome of a call refused before it ran (admission caps, a port that could not open). */
function refused(error: unknown): CallOutcome {
  return { ok: false, error: error instanceof McpError ? error : INTERNAL };
}
