import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/forked-server.js';
import { LineCollector, modernMeta, type WireMessage } from '../support/stdio.harness.js';

/**
 * Correlation everywhere (issue #27, item 4): with an OpenTelemetry SDK registered, the NDJSON progress events a
 * stdio server writes on stderr (`progress: 'stderr'`, and a wrapped command's lines relayed by `ctx.progressFrom`)
 * and the log notifications of `ctx.log` carry the call's own trace and span ids — so 30 calls in flight at once,
 * none of which sent a `traceparent`, are told apart line by line. The server is a real child process; its real
 * stdout and stderr are read.
 */

const ENTRY = 'test/fixtures/telemetry-stdio-main.fixture.ts';
const CALLS = 30;
const STEPS = 20;

interface Server {
  child: ChildProcessWithoutNullStreams;
  output: LineCollector;
  stderrLines(): string[];
}

const started: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startServer(mode: 'stderr' | 'wrapped'): Server {
  const child = spawn(
    process.execPath,
    ['--import', `${REPO_ROOT}test/support/ts-child.loader.mjs`, `${REPO_ROOT}${ENTRY}`, mode],
    {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  return { child, output: new LineCollector(child.stdout), stderrLines: () => stderr.split('\n') };
}

function progressEvents(lines: string[]): Array<Record<string, unknown>> {
  return lines
    .filter((line) => line.startsWith('{"type":"progress"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function callAll(
  server: Server,
  tool: string,
  args: (index: number) => Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<Map<number, { traceId: string; spanId: string }>> {
  for (let index = 1; index <= CALLS; index++) {
    server.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: index, method: 'tools/call', params: { name: tool, arguments: args(index), _meta: modernMeta(meta) } })}\n`,
    );
  }
  const answers = new Map<number, { traceId: string; spanId: string }>();
  for (let index = 1; index <= CALLS; index++) {
    const response = (await server.output.response(index, 60_000)) as WireMessage;
    expect(response.error).toBeUndefined();
    answers.set(index, response.result.structuredContent ?? JSON.parse(response.result.content[0].text));
  }
  return answers;
}

describe('telemetry: trace ids on progress events and log lines (stdio, a real process)', () => {
  it(`${CALLS} concurrent calls without a traceparent: ${CALLS * STEPS} stderr progress events and log lines, each naming its own call`, async () => {
    const server = startServer('stderr');
    const answers = await callAll(server, 'steps', () => ({ steps: STEPS }), {
      'io.modelcontextprotocol/logLevel': 'info',
    });
    const spans = new Set([...answers.values()].map((ids) => ids.spanId));
    expect(spans.size).toBe(CALLS);

    const events = progressEvents(server.stderrLines());
    expect(events).toHaveLength(CALLS * STEPS);
    for (const ids of answers.values()) {
      const own = events.filter((event) => event.spanId === ids.spanId);
      expect(own).toHaveLength(STEPS);
      expect(own.every((event) => event.traceId === ids.traceId)).toBe(true);
      // In order within one call, whatever the interleaving with the others.
      expect(own.map((event) => event.progress)).toEqual(Array.from({ length: STEPS }, (_, step) => step + 1));
    }

    const logs = server.output.lines
      .map((line) => JSON.parse(line) as WireMessage)
      .filter((message) => message.method === 'notifications/message');
    expect(logs).toHaveLength(CALLS * STEPS);
    for (const ids of answers.values()) {
      const own = logs.filter((message) => message.params._meta?.traceparent === `00-${ids.traceId}-${ids.spanId}-01`);
      expect(own.map((message) => message.params.data)).toEqual(
        Array.from({ length: STEPS }, (_, step) => `step ${step + 1}`),
      );
    }
  }, 90_000);

  it('a wrapped command’s progress lines relayed to stderr carry the ids of the call that ran it', async () => {
    const server = startServer('wrapped');
    const answers = await callAll(server, 'wrapped', (index) => ({ run: `run-${index}` }));
    const events = progressEvents(server.stderrLines());
    expect(events).toHaveLength(CALLS * 5);
    for (const [index, ids] of answers) {
      const own = events.filter((event) => (event.message as string).startsWith(`run-${index} `));
      expect(own).toHaveLength(5);
      expect(own.every((event) => event.spanId === ids.spanId && event.traceId === ids.traceId)).toBe(true);
    }
  }, 90_000);
});
