import 'reflect-metadata';
import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  ExportResultCode,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { McpModule } from '../../libs/mcp/src/index.js';
import { BenchTools } from './nest-mcp/bench.tools.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * The `telemetry` workload's server (issue #27): nest-mcp serving the bench tools in one of three modes:
 *
 *   node dist/bench/bench/servers/nest-mcp-telemetry.server.js --adapter express|fastify --mode sdk|api|off
 *
 * `sdk`: an OpenTelemetry SDK registered as `NodeSDK.start()` would (AsyncLocalStorage context manager, W3C
 * propagators, a tracer provider with the batch span processor, a meter provider with a reader), every span and
 * metric recorded; the exporter drops what it is handed, so the cost measured is nest-mcp's and the SDK's, not a
 * network's. `api`: `@opentelemetry/api` installed, nothing registered (the default of an app that does not use
 * OpenTelemetry). `off`: `telemetry: false`.
 */

type Mode = 'sdk' | 'api' | 'off';

/** Takes the spans the batch processor hands it and forgets them. */
class DiscardingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: { code: ExportResultCode }) => void): void {
    this.exported += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
}

/** A reader nobody collects from: instruments still aggregate every recording. */
class IdleReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

function modeOf(argv: string[] = process.argv.slice(2)): Mode {
  const index = argv.indexOf('--mode');
  const value = index >= 0 ? argv[index + 1] : 'api';
  if (value !== 'sdk' && value !== 'api' && value !== 'off')
    throw new Error(`--mode must be sdk, api or off (got ${value})`);
  return value;
}

function registerSdk(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new DiscardingExporter(), { maxQueueSize: 8192 })],
    }),
  );
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new IdleReader()] }));
}

function benchModule(mode: Mode): DynamicModule {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'nest-mcp-telemetry-bench',
        version: '1.0.0',
        ...(mode === 'off' && { telemetry: false as const }),
      }),
    ],
    providers: [BenchTools],
  })
  class NestMcpTelemetryBenchModule {}
  return { module: NestMcpTelemetryBenchModule };
}

async function createApp(adapter: AdapterName, mode: Mode): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(benchModule(mode), options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(benchModule(mode), new FastifyAdapter(), options);
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const mode = modeOf();
  if (mode === 'sdk') registerSdk();
  const app = await createApp(args.adapter, mode);
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  announce({ name: `nest-mcp (${args.adapter}, telemetry ${mode})`, port: address.port, close: () => app.close() });
}

runMain(main);
