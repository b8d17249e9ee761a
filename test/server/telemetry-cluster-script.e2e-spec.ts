import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/forked-server.js';
import { connectClient } from '../support/mcp-client.factory.js';

/**
 * `npm run demo:cluster -- --otel` (issue #27, item 5) as a user runs it: three replicas with OpenTelemetry on, and a
 * real Prometheus scraping all three; its query API shows the calls made through nginx, per replica; Ctrl-C stops
 * Prometheus with everything else and removes its directory.
 */

/** The script may have to run `nest build demo` first (10–20 s on two cores), then starts six processes. */
const START_TIMEOUT_MS = 150_000;

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

async function query(
  prometheus: string,
  expression: string,
): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const body = (await (await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expression)}`)).json()) as {
    data: { result: never[] };
  };
  return body.data.result;
}

describe('npm run demo:cluster -- --otel', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('starts a real Prometheus that scrapes the three replicas; Ctrl-C stops it too', {
    timeout: START_TIMEOUT_MS + 90_000,
  }, async () => {
    let stdout = '';
    let stderr = '';
    child = spawn(process.execPath, ['scripts/demo-cluster.mjs', '--otel'], {
      cwd: REPO_ROOT,
      // No collector in this test: spans are dropped after the exporter's retries, nothing else changes.
      env: { ...process.env, PORT: '0', NO_COLOR: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child!.once('exit', (code, signal) => resolve({ code, signal })),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no banner after ${START_TIMEOUT_MS} ms:\n${stderr}`)),
        START_TIMEOUT_MS,
      );
      child!.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('OpenTelemetry on (--otel)') && stdout.includes('traces ')) clearTimeout(timer), resolve();
      });
      void exited.then(
        ({ code, signal }) => (
          clearTimeout(timer), reject(new Error(`demo:cluster exited (${code ?? signal}):\n${stderr}`))
        ),
      );
    });
    const url = /MCP endpoint\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout)![1];
    const prometheus = /Prometheus\s+(http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout)!;
    const targets = [.../scrapes (.*) every second/.exec(stdout)![1].matchAll(/127\.0\.0\.1:(\d+)/g)].map(
      (match) => match[0],
    );
    expect(targets).toHaveLength(3);

    const client = await connectClient(new URL(url));
    for (let i = 0; i < 6; i++) await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } });
    await client.close();

    const deadline = Date.now() + 30_000;
    let perInstance: Array<{ metric: Record<string, string>; value: [number, string] }> = [];
    while (Date.now() < deadline) {
      perInstance = await query(
        prometheus[1],
        'sum by (instance) (mcp_server_operation_duration_count{mcp_method_name="tools/call",gen_ai_tool_name="get_service"})',
      );
      const total = perInstance.reduce((sum, sample) => sum + Number(sample.value[1]), 0);
      if (perInstance.length === 3 && total >= 6) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Round robin: every replica served some of the six calls, and Prometheus saw each of them.
    expect(perInstance.map((sample) => sample.metric.instance).sort()).toEqual([...targets].sort());
    expect(perInstance.reduce((sum, sample) => sum + Number(sample.value[1]), 0)).toBe(6);
    const up = await query(prometheus[1], 'up{job="ops-console"}');
    expect(up.map((sample) => sample.value[1])).toEqual(['1', '1', '1']);

    child.kill('SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(await listening(Number(prometheus[2])), 'the Prometheus port').toBe(false);
    const logsDir = /logs\s+(\S+)\/replica-\*\.log/.exec(stdout)![1];
    expect(existsSync(logsDir)).toBe(false);
  });
});
