import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { McpTelemetry } from './mcp-telemetry.js';
import { loadOtelApi } from './otel-api.loader.js';
import type { TelemetryCall } from './telemetry-call.interface.js';

const SETTINGS = {
  recordToolArguments: false,
  recordToolResults: false,
  recordPromptVariables: false,
  resourceUriInMetrics: false,
};
const CALL: TelemetryCall = {
  id: 1,
  method: 'tools/call',
  params: { name: 'echo' },
  meta: {
    protocolVersion: '2026-07-28',
    clientCapabilities: {},
    raw: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  },
  origin: 'http',
};
const TARGET = { implemented: true, wire: '2026-07-28', streaming: false, name: 'echo' } as const;

/** "Free when off": without an SDK, a call gets no telemetry object at all; one registered later is picked up. */
describe('McpTelemetry', () => {
  afterEach(() => {
    trace.disable();
    metrics.disable();
  });

  it('OFF (telemetry: false, or no @opentelemetry/api) never starts anything', () => {
    expect(McpTelemetry.OFF.available).toBe(false);
    expect(McpTelemetry.OFF.start(CALL, TARGET)).toBeUndefined();
    expect(McpTelemetry.OFF.instruments()).toBeUndefined();
  });

  it('with the API but no SDK registered: start returns undefined, nothing is registered', async () => {
    const telemetry = new McpTelemetry(await loadOtelApi(), SETTINGS);
    expect(telemetry.available).toBe(true);
    for (let index = 0; index < 3; index++) expect(telemetry.start(CALL, TARGET)).toBeUndefined();
    expect(telemetry.instruments()).toBeUndefined();
    expect(trace.getTracerProvider().constructor.name).toBe('ProxyTracerProvider');
  });

  it('recordRefusal without an SDK (or OFF) reads nothing of the refusal', async () => {
    const telemetry = new McpTelemetry(await loadOtelApi(), SETTINGS);
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the refusal was read');
        },
      },
    ) as never;
    expect(() => telemetry.recordRefusal(untouchable)).not.toThrow();
    expect(() => McpTelemetry.OFF.recordRefusal(untouchable)).not.toThrow();
  });

  it('an SDK registered after startup is used from the next call on', async () => {
    const telemetry = new McpTelemetry(await loadOtelApi(), SETTINGS);
    expect(telemetry.start(CALL, TARGET)).toBeUndefined();
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    const started = telemetry.start(CALL, TARGET);
    expect(started?.traceIds?.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    started!.end({ ok: true, result: {} }, { notifications: 0, progress: 0, sse: false, cancelled: false });
    metrics.setGlobalMeterProvider(new MeterProvider());
    expect(telemetry.instruments()).toBeDefined();
  });
});
