import type { Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import type { McpResolvedTelemetryOptions } from '../config/resolved-options.js';
import type { McpTaskQueueDepth } from '../protocol/task-runner.interface.js';
import type { McpTraceContext } from '../protocol/trace-context.interface.js';
import { DeliveryTelemetry, StreamPushTelemetry } from './delivery-telemetry.js';
import type { DeliveryAttempt, EventPushSpans, EventTelemetry } from './event-telemetry.interface.js';
import { McpInstruments } from './mcp-instruments.js';
import type { OtelApi } from './otel-api.loader.js';
import { recordRefusal } from './refusal-telemetry.js';
import type { TelemetryRefusal } from './telemetry-refusal.interface.js';
import { RequestTelemetry } from './request-telemetry.js';
import {
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_NEST_MCP_OUTCOME,
  ATTR_NEST_MCP_REASON,
  ATTR_NEST_MCP_MRTR_ROUND,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_TRANSPORT,
  INSTRUMENTATION_SCOPE,
} from './semconv.js';
import type { TelemetryCall, TelemetryTarget } from './telemetry-call.interface.js';
import { observeTaskQueueDepth } from './task-queue-depth.gauge.js';
import { toTraceContext } from './trace-context.codec.js';

/**
 * nest-mcp's one door to OpenTelemetry: hands out the telemetry of a call, and the instruments of the operational
 * metrics, only while something records them.
 *
 * "Free when off" (ADR 0031): with `telemetry: false`, or without `@opentelemetry/api` installed, `start` returns
 * undefined at once. With the API but no SDK registered, it checks the global providers (two property reads) and
 * returns undefined too: no span object, no attribute, no closure is built for the call. An SDK registered after the
 * application started is picked up on the next call; tracers and instruments are made once per provider.
 */
export class McpTelemetry implements EventTelemetry {
  /** Telemetry that is off for good (`telemetry: false`, or no `@opentelemetry/api`). */
  static readonly OFF = new McpTelemetry(undefined, undefined);

  private readonly noopTracerProvider?: TracerProvider;
  private readonly noopMeter?: Meter;
  private tracerOf?: { provider: TracerProvider; tracer: Tracer | undefined };
  private instrumentsOf?: { provider: MeterProvider; instruments: McpInstruments | undefined };
  /** The task queue's job counts and the named server it is of, once a shared runner offered them (`observeTaskQueue`). */
  private taskQueue?: { readonly read: () => Promise<McpTaskQueueDepth>; readonly server?: string };

  constructor(
    private readonly api: OtelApi | undefined,
    private readonly settings: McpResolvedTelemetryOptions | undefined,
  ) {
    if (!api) return;
    // The API's own no-op objects, to tell "nothing registered" from a real SDK without calling into it per call.
    this.noopTracerProvider = new api.ProxyTracerProvider().getDelegate();
    this.noopMeter = api.createNoopMeter();
  }

  /** Whether telemetry can ever record (it is not off and the API is installed). */
  get available(): boolean {
    return this.api !== undefined;
  }

  /**
   * The telemetry of a call that starts now, or undefined when nothing would record it. `target` is the runner's
   * reading of the call (implemented method, registered name, wire).
   */
  start(call: TelemetryCall, target: TelemetryTarget): RequestTelemetry | undefined {
    const api = this.api;
    if (!api) return undefined;
    const tracer = this.tracer();
    const instruments = this.instruments();
    if (!tracer && !instruments) return undefined;
    return new RequestTelemetry(api, this.settings!, call, target, tracer, instruments);
  }

  /**
   * Records a request the HTTP transport refused before the runner (bearer check, Host/Origin, body too large,
   * Content-Type, malformed JSON-RPC, headers that disagree with the body…): a SERVER span and a point of
   * `mcp.server.operation.duration`. Free when off, like `start`: returns at once without an SDK.
   */
  recordRefusal(refusal: TelemetryRefusal): void {
    const api = this.api;
    if (!api) return;
    const tracer = this.tracer();
    const instruments = this.instruments();
    if (tracer || instruments) recordRefusal(api, this.settings!, refusal, tracer, instruments);
  }

  /**
   * Sets `nest_mcp.mrtr.round` on the active span (the call's SERVER span while its handler runs) when it records.
   * Free when off: returns at once without the API, and a non-recording span gets nothing.
   */
  markRound(round: number): void {
    const span = this.api?.trace.getActiveSpan();
    if (span?.isRecording()) span.setAttribute(ATTR_NEST_MCP_MRTR_ROUND, round);
  }

  /**
   * Counts a refusal of the calls-in-flight caps in `nest_mcp.admission.refusals`: `reason` is `per_caller` (429:
   * one principal or address at its cap) or `server` (503: the server at its cap).
   */
  countRefusal(refusal: unknown): void {
    const status = (refusal as { httpStatus?: number } | undefined)?.httpStatus;
    this.instruments()?.admissionRefusals.add(1, { [ATTR_NEST_MCP_REASON]: status === 429 ? 'per_caller' : 'server' });
  }

  /**
   * Records a 2025-11-25 HTTP session's lifetime in `mcp.server.session.duration` (the 2026-07-28 wire has no
   * sessions): from `openedAt` (`performance.now()` at `initialize`) until now.
   */
  recordSession(openedAt: number, protocolVersion: string): void {
    this.instruments()?.sessionDuration.record((performance.now() - openedAt) / 1000, {
      [ATTR_MCP_PROTOCOL_VERSION]: protocolVersion,
      [ATTR_NETWORK_TRANSPORT]: 'tcp',
      [ATTR_NETWORK_PROTOCOL_NAME]: 'http',
    });
  }

  /**
   * Counts a webhook delivery that is over in `nest_mcp.event.deliveries`: `nest_mcp.outcome` is `delivered`, or the
   * failure category it was given up on with (`timeout`, `http_4xx`, …: SEP-3415 `lastError`, bounded).
   */
  countDelivery(failure: string | undefined): void {
    this.instruments()?.eventDeliveries.add(1, { [ATTR_NEST_MCP_OUTCOME]: failure ?? 'delivered' });
  }

  /** Counts a failed webhook attempt that will be retried in `nest_mcp.event.delivery.retries`, by failure category. */
  countDeliveryRetry(failure: string): void {
    this.instruments()?.eventDeliveryRetries.add(1, { [ATTR_NEST_MCP_REASON]: failure });
  }

  /**
   * The active span as W3C Trace Context (what an emitted event keeps, so that its deliveries link back to it), when a
   * tracer is registered and a valid span is active; undefined otherwise, with nothing built.
   */
  captureContext(): McpTraceContext | undefined {
    const api = this.api;
    if (!api || !this.tracer()) return undefined;
    return toTraceContext(api, api.trace.getSpanContext(api.context.active()));
  }

  /** The span of one webhook delivery attempt, when a tracer is registered (docs/observability.md, "Events"). */
  startDelivery(attempt: DeliveryAttempt): DeliveryTelemetry | undefined {
    const api = this.api;
    const tracer = api && this.tracer();
    return tracer ? new DeliveryTelemetry(api, tracer, attempt) : undefined;
  }

  /** Spans for the pushes of the `events/stream` whose span is active now, when a tracer is registered. */
  streamPushes(): EventPushSpans | undefined {
    const api = this.api;
    const tracer = api && this.tracer();
    return tracer ? new StreamPushTelemetry(api, tracer, api.context.active()) : undefined;
  }

  /**
   * Reports a shared task queue's depth as `nest_mcp.task.queue.depth` (an observable gauge read once per collection)
   * on the registered meter provider, now or once one is registered. Called once, at bootstrap, for a runner with
   * `queueDepth`; `server` names the server whose own queue it is (a runner of `McpRedis.forServer`), reported as
   * `nest_mcp.server` so that the queues of several servers stay apart.
   */
  observeTaskQueue(read: () => Promise<McpTaskQueueDepth>, server?: string): void {
    if (!this.api || this.taskQueue) return;
    this.taskQueue = { read, server };
    const built = this.instrumentsOf?.instruments;
    if (built) observeTaskQueueDepth(built.meter, read, server);
    else this.instruments();
  }

  /** The instruments of the registered meter provider; undefined when none is registered. */
  instruments(): McpInstruments | undefined {
    const api = this.api;
    if (!api) return undefined;
    const provider = (this.settings?.meterProvider as MeterProvider | undefined) ?? api.metrics.getMeterProvider();
    const cached = this.instrumentsOf;
    if (cached?.provider === provider) return cached.instruments;
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    const instruments = meter === this.noopMeter ? undefined : new McpInstruments(meter);
    this.instrumentsOf = { provider, instruments };
    if (instruments && this.taskQueue) observeTaskQueueDepth(meter, this.taskQueue.read, this.taskQueue.server);
    return instruments;
  }

  /** The tracer of the registered tracer provider; undefined when none is registered. */
  private tracer(): Tracer | undefined {
    const api = this.api!;
    const injected = this.settings?.tracerProvider as TracerProvider | undefined;
    const global = api.trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
    // The global provider is a proxy: what counts is whether an SDK was set as its delegate.
    const provider = injected ?? global.getDelegate?.() ?? global;
    const cached = this.tracerOf;
    if (cached?.provider === provider) return cached.tracer;
    const tracer = isNoop(provider, this.noopTracerProvider) ? undefined : provider.getTracer(INSTRUMENTATION_SCOPE);
    this.tracerOf = { provider, tracer };
    return tracer;
  }
}

/** The API's no-op provider, also when it comes from another (compatible) copy of the API. */
function isNoop(provider: TracerProvider, noop: TracerProvider | undefined): boolean {
  return provider === noop || provider.constructor?.name === 'NoopTracerProvider';
}
