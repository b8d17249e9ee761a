// #region docs:otel-sdk-setup
// otel.ts — imported first thing in main.ts, before Nest creates the application.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

const resource = resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'my-mcp-server' });
// Spans by OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318).
const tracerProvider = new BasicTracerProvider({
  resource,
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
// Metrics at http://127.0.0.1:9464/metrics for Prometheus to scrape.
const meterProvider = new MeterProvider({
  resource,
  readers: [new PrometheusExporter({ host: '127.0.0.1', port: 9464 })],
});

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);
trace.setGlobalTracerProvider(tracerProvider);
metrics.setGlobalMeterProvider(meterProvider);
// #endregion docs:otel-sdk-setup

export { meterProvider, tracerProvider };
