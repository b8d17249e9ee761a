import { Client, type ElicitResult, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildStdioFixture } from '../support/stdio-fixture.build.js';
import { LineCollector, modernMeta, type WireMessage } from '../support/stdio.harness.js';

/**
 * The stdio fixture as a real child process (compiled with tsc), driven through its real stdin/stdout pipes — raw,
 * and with the official client's StdioClientTransport.
 */
let entry: string;

beforeAll(async () => {
  entry = await buildStdioFixture();
}, 180_000);

interface RunningFixture {
  child: ChildProcessWithoutNullStreams;
  output: LineCollector;
  stderr: () => string;
  send(message: object): void;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

const running: RunningFixture[] = [];

afterEach(() => {
  for (const fixture of running.splice(0)) if (fixture.child.exitCode === null) fixture.child.kill('SIGKILL');
});

function startFixture(env: Record<string, string> = {}): RunningFixture {
  const child = spawn(process.execPath, [entry], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const fixture: RunningFixture = {
    child,
    output: new LineCollector(child.stdout),
    stderr: () => stderr,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    exited: once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>,
  };
  running.push(fixture);
  return fixture;
}

/** Every stdout line is one complete JSON-RPC 2.0 message, and nothing follows the last newline. */
function expectOnlyJsonRpc(output: LineCollector): void {
  expect(output.partial).toBe('');
  expect(output.lines.length).toBeGreaterThan(0);
  for (const line of output.lines) {
    const message = JSON.parse(line) as WireMessage;
    expect(message.jsonrpc).toBe('2.0');
    expect('method' in message || 'result' in message || 'error' in message).toBe(true);
  }
}

function connectOfficialClient(mode: 'pinned' | 'legacy'): { client: Client; transport: StdioClientTransport } {
  const client = new Client(
    { name: 'stdio-e2e', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(mode === 'pinned' && { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    },
  );
  client.setRequestHandler('elicitation/create', async (request): Promise<ElicitResult> => {
    expect(request.params.message).toBe('Run deploy?');
    return { action: 'accept', content: { confirm: true, note: mode } };
  });
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  return { client, transport };
}

/** Records the values of every progress notification the client's transport receives, before the client sees them. */
function tapProgress(transport: StdioClientTransport): Record<string, unknown>[] {
  const received: Record<string, unknown>[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && message.method === 'notifications/progress') {
      const { progressToken: _token, ...values } = message.params as Record<string, unknown>;
      received.push(values);
    }
    deliver?.call(transport, message);
  };
  return received;
}

/**
 * What `onprogress` got: `expected`, in order, with at most `maxMissing` left out. The client (2.4.0) may drop a
 * notification that arrives in the same read as a response (modelcontextprotocol/typescript-sdk#2580), so at most
 * one per response; what the transport received is checked exactly with `tapProgress`.
 */
function expectDelivered(seen: unknown[], expected: unknown[], maxMissing: number): void {
  expect(seen.length).toBeGreaterThanOrEqual(expected.length - maxMissing);
  let next = 0;
  for (const value of seen) {
    while (next < expected.length && JSON.stringify(expected[next]) !== JSON.stringify(value)) next++;
    expect(next, `${JSON.stringify(value)} is not in order in ${JSON.stringify(seen)}`).toBeLessThan(expected.length);
    next++;
  }
}

describe('stdio server as a child process', () => {
  it('keeps stdout to JSON-RPC lines only while the app logs heavily through every channel', async () => {
    const fixture = startFixture({ STDIO_FIXTURE_NOISY: '1' });
    fixture.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } });
    fixture.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'chatty', _meta: modernMeta({ progressToken: 'c' }) },
    });
    fixture.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'count', arguments: { n: 20, delayMs: 5 }, _meta: modernMeta({ progressToken: 'n' }) },
    });
    await fixture.output.response(3);
    fixture.child.stdin.end();
    expect(await fixture.exited).toEqual([0, null]);

    expectOnlyJsonRpc(fixture.output);
    expect(
      fixture.output.messages
        .filter((message) => 'id' in message)
        .map((message) => message.id)
        .sort(),
    ).toEqual([1, 2, 3]);
    const stderr = fixture.stderr();
    // What would have corrupted stdout went to stderr instead.
    for (const text of [
      'console tick',
      'raw stdout write 5',
      'console.log from chatty 5',
      'chatty step 5',
      'NoisyNeighbour',
      'Mapped 6 tools',
    ]) {
      expect(stderr).toContain(text);
    }
    expect(stderr.split('\n').length).toBeGreaterThan(100);
  });

  it('serves 50 concurrent calls with progress: each sees only its own token, in order, every line intact', async () => {
    const fixture = startFixture({ STDIO_FIXTURE_NOISY: '1' });
    const calls = 50;
    const steps = 12;
    const requests = Array.from({ length: calls }, (_, i) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: {
          name: 'count',
          arguments: { n: steps, delayMs: 1 + (i % 3) },
          _meta: modernMeta(i % 10 === 9 ? {} : { progressToken: `token-${i}` }),
        },
      }),
    );
    // All requests in one write: the server reads them in a burst and serves them at once.
    fixture.child.stdin.write(`${requests.join('\n')}\n`);
    const responses = await Promise.all(Array.from({ length: calls }, (_, i) => fixture.output.response(i, 30_000)));
    fixture.child.stdin.end();
    expect(await fixture.exited).toEqual([0, null]);

    expectOnlyJsonRpc(fixture.output);
    const messages = fixture.output.messages;
    const progress = messages.filter((message) => message.method === 'notifications/progress');
    const tokens = new Set(progress.map((message) => message.params.progressToken));
    expect(tokens.size).toBe(calls - calls / 10);
    for (let i = 0; i < calls; i++) {
      expect(responses[i].result.structuredContent).toEqual({ counted: steps });
      const own = progress.filter((message) => message.params.progressToken === `token-${i}`);
      if (i % 10 === 9) {
        expect(own).toEqual([]);
        continue;
      }
      expect(own.map((message) => message.params.progress)).toEqual(
        Array.from({ length: steps }, (_, step) => step + 1),
      );
      expect(messages.indexOf(own.at(-1)!)).toBeLessThan(messages.indexOf(responses[i]));
    }
    // The calls really ran at the same time: their progress interleaves.
    const firstResponse = messages.findIndex((message) => 'result' in message);
    expect(
      new Set(
        progress
          .filter((message) => messages.indexOf(message) < firstResponse)
          .map((message) => message.params.progressToken),
      ).size,
    ).toBeGreaterThan(10);
  });

  it.each(['pinned', 'legacy'] as const)(
    'serves the official client over StdioClientTransport (%s): progress and an elicitation',
    async (mode) => {
      const { client, transport } = connectOfficialClient(mode);
      await client.connect(transport);
      const received = tapProgress(transport);
      try {
        expect(client.getNegotiatedProtocolVersion?.()).toBe(mode === 'pinned' ? '2026-07-28' : '2025-11-25');

        const counted: unknown[] = [];
        const count = await client.callTool(
          { name: 'count', arguments: { n: 5, delayMs: 10 } },
          { onprogress: (update) => counted.push(update) },
        );
        expect(count.structuredContent).toEqual({ counted: 5 });
        const countProgress = [1, 2, 3, 4, 5].map((progress) => ({
          progress,
          total: 5,
          message: `counted ${progress} of 5`,
        }));
        expect(received.splice(0)).toEqual(countProgress);
        expectDelivered(counted, countProgress, 1);

        const steps: unknown[] = [];
        const confirm = await client.callTool(
          { name: 'confirm_action', arguments: { action: 'deploy' } },
          { onprogress: (update) => steps.push(update.message) },
        );
        expect(confirm.content).toEqual([{ type: 'text', text: `deploy: done (${mode})` }]);
        // 2026: the handler ran twice (MRTR replay), each round reporting its progress; 2025: one run, the elicitation
        // a real request in the middle of it.
        const server =
          mode === 'pinned'
            ? ['preparing', 'checking', 'preparing', 'checking', 'answered']
            : ['preparing', 'checking', 'answered'];
        // The client adds a marker of its own when it answers a round.
        const client2026 = [
          'preparing',
          'checking',
          "Fulfilling input required by 'tools/call' (round 1)",
          'preparing',
          'checking',
          'answered',
        ];
        expect(received.map((values) => values.message)).toEqual(server);
        expectDelivered(steps, mode === 'pinned' ? client2026 : server, mode === 'pinned' ? 2 : 1);
      } finally {
        await client.close();
      }
    },
  );

  it('relays the NDJSON progress of a wrapped command: notifications with a token, nothing extra without one', async () => {
    const { client, transport } = connectOfficialClient('pinned');
    await client.connect(transport);
    const received = tapProgress(transport);
    const seen: unknown[] = [];
    try {
      const result = await client.callTool(
        { name: 'wrap_command', arguments: { steps: 5 } },
        { onprogress: (update) => seen.push(update) },
      );
      expect(result.content).toEqual([{ type: 'text', text: 'job output: 5 steps' }]);
      // The stale line the script prints (progress 1 after 2) is skipped, not relayed and not fatal.
      const stepProgress = [1, 2, 3, 4, 5].map((progress) => ({
        progress,
        total: 5,
        message: `step ${progress} of 5`,
      }));
      expect(received).toEqual(stepProgress);
      expectDelivered(seen, stepProgress, 1);
    } finally {
      await client.close();
    }

    const fixture = startFixture();
    fixture.send({
      jsonrpc: '2.0',
      id: 'quiet',
      method: 'tools/call',
      params: { name: 'wrap_command', arguments: { steps: 5 }, _meta: modernMeta() },
    });
    const quiet = await fixture.output.response('quiet');
    fixture.child.stdin.end();
    await fixture.exited;
    expect(quiet.result.content).toEqual([{ type: 'text', text: 'job output: 5 steps' }]);
    expect(fixture.output.messages).toEqual([quiet]);
    // The command's other stderr lines went to the server's logger.
    expect(fixture.stderr()).toMatch(/\[wrap_command\] starting the job/);
    expect(fixture.stderr()).toMatch(/Skipped a progress line \(progress must strictly increase: 1 after 2\)/);
  });

  it("with progress: 'stderr', writes ProgressEvents to stderr for requests without a token, with the trace ids", async () => {
    const fixture = startFixture({ STDIO_FIXTURE_PROGRESS: 'stderr' });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    fixture.send({
      jsonrpc: '2.0',
      id: 'no-token',
      method: 'tools/call',
      params: { name: 'count', arguments: { n: 3 }, _meta: modernMeta({ traceparent }) },
    });
    await fixture.output.response('no-token');
    fixture.send({
      jsonrpc: '2.0',
      id: 'token',
      method: 'tools/call',
      params: { name: 'count', arguments: { n: 2 }, _meta: modernMeta({ progressToken: 'p' }) },
    });
    await fixture.output.response('token');
    fixture.child.stdin.end();
    await fixture.exited;

    const events = fixture
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{"type":"progress"'))
      .map((line) => JSON.parse(line));
    expect(events).toEqual(
      [1, 2, 3].map((progress) => ({
        type: 'progress',
        progress,
        total: 3,
        message: `counted ${progress} of 3`,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
      })),
    );
    expect(
      fixture.output.messages
        .filter((message) => message.method === 'notifications/progress')
        .map((message) => message.params.progressToken),
    ).toEqual(['p', 'p']);
  });

  it('on SIGTERM, aborts ctx.signal, answers the call in flight and exits 0', async () => {
    const fixture = startFixture();
    fixture.send({
      jsonrpc: '2.0',
      id: 'wait',
      method: 'tools/call',
      params: { name: 'wait_for_cancel', _meta: modernMeta({ progressToken: 'w' }) },
    });
    await fixture.output.waitFor((message) => message.params?.progressToken === 'w');
    fixture.child.kill('SIGTERM');
    expect(await fixture.exited).toEqual([0, null]);
    expect((await fixture.output.response('wait', 1)).result.content).toEqual([{ type: 'text', text: 'aborted' }]);
    expectOnlyJsonRpc(fixture.output);
  });
});
