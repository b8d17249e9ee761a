import type { Client } from '@modelcontextprotocol/client';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrometheus, type PrometheusServer } from '../../scripts/cluster/prometheus-server.mjs';
import { freePort } from '../support/free-port.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { OtlpReceiver } from '../support/otlp-receiver.js';

/**
 * The demo with `--otel` (issue #27, item 5), as a user runs it: `npm start -- --otel` with the standard `OTEL_*`
 * variables, in a child process. Its traces arrive by OTLP/HTTP at a receiver on 127.0.0.1; a real Prometheus
 * (Debian package), started here on a free loopback port with its own config and storage, scrapes its metrics, and
 * its query API returns `mcp.server.operation.duration` for the `tools/call` the official client made.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The script may have to run `nest build demo` first, which takes 10–20 s on two cores. */
const START_TIMEOUT_MS = 120_000;
const TRACE_ID = '5bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '10f067aa0ba902b7';

function waitForListening(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<URL> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not started after ${START_TIMEOUT_MS} ms:\n${output.stderr}`)),
      START_TIMEOUT_MS,
    );
    const onData = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output.stdout);
      if (!match || !/OpenTelemetry on:/.test(output.stdout)) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(new URL(match[1]));
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) =>
      reject(new Error(`start-demo exited early (${code ?? signal}):\n${output.stderr}\n${output.stdout}`)),
    );
  });
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('npm start -- --otel: OTLP/HTTP traces and a real Prometheus scraping the demo', () => {
  let child: ChildProcess | undefined;
  const output = { stdout: '', stderr: '' };
  let receiver: OtlpReceiver;
  let prometheus: PrometheusServer;
  let mcpUrl: URL;
  let client: Client;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    const metricsPort = await freePort();
    child = spawn(process.execPath, ['scripts/start-demo.mjs', '--otel'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        NO_COLOR: '1',
        OTEL_SERVICE_NAME: 'ops-console-e2e',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesUrl,
        OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
        OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    mcpUrl = await waitForListening(child, output);
    prometheus = await startPrometheus({ targets: [`127.0.0.1:${metricsPort}`] });
    client = await connectClient(mcpUrl);
  }, START_TIMEOUT_MS + 40_000);

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    await prometheus?.dispose();
    await receiver?.close();
  }, 30_000);

  it('Prometheus’s query API returns mcp.server.operation.duration for the tools/call', async () => {
    await client.callTool({ name: 'list_services', arguments: {} });
    const samples = await eventually('the histogram in Prometheus', async () => {
      const result = await prometheus.query(
        'mcp_server_operation_duration_count{mcp_method_name="tools/call",gen_ai_tool_name="list_services"}',
      );
      return result.length > 0 && Number(result[0].value[1]) >= 1 ? result : undefined;
    });
    expect(samples[0].metric).toMatchObject({
      job: 'nest-mcp',
      mcp_method_name: 'tools/call',
      gen_ai_tool_name: 'list_services',
      gen_ai_operation_name: 'execute_tool',
      mcp_protocol_version: '2026-07-28',
      network_transport: 'tcp',
    });
    // No id of any kind on a metric: they would make a series per request.
    for (const label of Object.keys(samples[0].metric))
      expect(label).not.toMatch(/request_id|session_id|client_address/);
    // The advised buckets, in seconds.
    const buckets = await prometheus.query(
      'mcp_server_operation_duration_bucket{mcp_method_name="tools/call",gen_ai_tool_name="list_services"}',
    );
    const bound = (le: string) => (le === '+Inf' ? Infinity : Number(le));
    expect(buckets.map((sample) => sample.metric.le).sort((a, b) => bound(a) - bound(b))).toEqual([
      '0.01',
      '0.02',
      '0.05',
      '0.1',
      '0.2',
      '0.5',
      '1',
      '2',
      '5',
      '10',
      '30',
      '60',
      '120',
      '300',
      '+Inf',
    ]);
    // A sample alert expression from docs/observability.md evaluates.
    const p95 = await prometheus.query(
      'histogram_quantile(0.95, sum by (le, mcp_method_name) (rate(mcp_server_operation_duration_bucket[1m])))',
    );
    expect(Array.isArray(p95)).toBe(true);
  }, 60_000);

  it('the traces arrive by OTLP/HTTP: the span continues the trace of the client’s _meta', async () => {
    await client.callTool({
      name: 'get_service',
      arguments: { name: 'checkout-api' },
      _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    const span = await receiver.waitFor((candidate) => candidate.name === 'tools/call get_service');
    expect(span).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID, kind: 2, service: 'ops-console-e2e' });
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'get_service',
      'network.transport': 'tcp',
    });
  }, 60_000);
});
