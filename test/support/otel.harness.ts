import { context, metrics, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** A metric reader the test collects from on demand. */
class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/**
 * A real OpenTelemetry SDK (the 2.12.1 line, Node 20) with an in-memory span exporter and an on-demand metric
 * reader, registered as the process's globals (tracer and meter providers, the AsyncLocalStorage context manager,
 * W3C trace-context and baggage propagators), as `NodeSDK.start()` would. `uninstall()` takes every global back.
 */
export class OtelHarness {
  readonly exporter = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.exporter)] });
  readonly reader = new TestMetricReader();
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  private readonly contextManager = new AsyncLocalStorageContextManager();

  static install(options: { globalProviders?: boolean } = {}): OtelHarness {
    const harness = new OtelHarness();
    context.setGlobalContextManager(harness.contextManager.enable());
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
    if (options.globalProviders !== false) {
      trace.setGlobalTracerProvider(harness.tracerProvider);
      metrics.setGlobalMeterProvider(harness.meterProvider);
    }
    return harness;
  }

  /** Finished spans whose name starts with `prefix` (all when omitted). */
  spans(prefix = ''): ReadableSpan[] {
    return this.exporter.getFinishedSpans().filter((span) => span.name.startsWith(prefix));
  }

  /** The one finished span named exactly `name`; fails when there is not exactly one. */
  span(name: string): ReadableSpan {
    const found = this.exporter.getFinishedSpans().filter((span) => span.name === name);
    if (found.length !== 1)
      throw new Error(
        `expected one span "${name}", found ${found.length}: ${this.exporter
          .getFinishedSpans()
          .map((s) => s.name)
          .join(', ')}`,
      );
    return found[0];
  }

  /** Waits until `count` spans starting with `prefix` have finished (spans of SSE answers end as the stream ends). */
  async waitForSpans(prefix: string, count: number, timeoutMs = 5000): Promise<ReadableSpan[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.spans(prefix).length < count) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${count} "${prefix}" spans; have ${this.spans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.spans(prefix);
  }

  async collect(): Promise<ResourceMetrics> {
    const { resourceMetrics, errors } = await this.reader.collect();
    if (errors.length > 0) throw errors[0];
    return resourceMetrics;
  }

  /** The data points of one metric. */
  async points(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
    const collected = await this.collect();
    const metric = collected.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((entry) => entry.descriptor.name === name);
    return (metric?.dataPoints ?? []) as Array<{ attributes: Record<string, unknown>; value: unknown }>;
  }

  async uninstall(): Promise<void> {
    this.exporter.reset();
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
  }
}

/** The parent span id of a span, if any. */
export function parentOf(span: ReadableSpan): SpanContext | undefined {
  return span.parentSpanContext;
}
