import { context, metrics, propagation, trace } from '@opentelemetry/api';

/** What `--otel` started: shut it down after the application, so the last spans and metrics leave. */
export interface DemoTelemetry {
  /** Where Prometheus scrapes this process. */
  readonly metricsUrl: string;
  shutdown(): Promise<void>;
}

/**
 * The demo's OpenTelemetry setup (`npm start -- --otel`), in the place an application puts it: before Nest creates
 * the application. Traces go by OTLP/HTTP to the collector the standard variables name (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; default `http://localhost:4318/v1/traces`), as `OTEL_SERVICE_NAME`
 * (default `nest-mcp-demo`); metrics are served for Prometheus on `OTEL_EXPORTER_PROMETHEUS_HOST`:`…_PORT` (default
 * 127.0.0.1:9464) at `/metrics`. nest-mcp needs nothing else: it finds the registered providers
 * (docs/observability.md). The SDK packages are loaded only with `--otel`.
 */
export async function startDemoTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<DemoTelemetry> {
  const [
    { AsyncLocalStorageContextManager },
    { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator },
    { resourceFromAttributes },
  ] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const [
    { BasicTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { MeterProvider },
    { PrometheusExporter },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/exporter-prometheus'),
  ]);
  const resource = resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'nest-mcp-demo' });
  // The exporter reads the OTLP endpoint variables itself.
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })],
  });
  const host = env.OTEL_EXPORTER_PROMETHEUS_HOST ?? '127.0.0.1';
  const port = Number(env.OTEL_EXPORTER_PROMETHEUS_PORT ?? 9464);
  const prometheus = new PrometheusExporter({ host, port });
  const meterProvider = new MeterProvider({ resource, readers: [prometheus] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    metricsUrl: `http://${host}:${port}/metrics`,
    shutdown: async () => {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
