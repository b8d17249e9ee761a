import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioFixtureModule } from '../fixtures/stdio.fixture.js';
import { startApp, type RunningApp } from '../support/app.factory.js';
import { buildStdioFixture } from '../support/stdio-fixture.build.js';

/**
 * The `nest-mcp` terminal client (bin/nest-mcp.mjs) as a user runs it: in a pipe (machine output) and in a
 * pseudo-terminal (live bar, forms), against the stdio fixture started with --stdio and over HTTP.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/nest-mcp.mjs');
const PTY_DRIVER = join(ROOT, 'test/support/pty.driver.py');

let stdioTarget: string;
let http: RunningApp;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with pipes for stdin, stdout and stderr. */
async function runCli(args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs the CLI in a pseudo-terminal, typing `replies` when their prompt shows; resolves with the screen's bytes. */
async function runCliInTerminal(
  args: string[],
  replies: [string, string][] = [],
): Promise<{ status: number; screen: string; unanswered: string[] }> {
  const spec = {
    argv: [process.execPath, BIN, ...args],
    replies,
    columns: 100,
    timeout: 60,
    env: { TERM: 'xterm-256color' },
  };
  const { stdout } = await promisify(execFile)('python3', [PTY_DRIVER, JSON.stringify(spec)], {
    cwd: ROOT,
    timeout: 90_000,
  });
  const result = JSON.parse(stdout) as { output: string; status: number; unanswered: string[] };
  return {
    status: result.status,
    screen: Buffer.from(result.output, 'base64').toString('utf8'),
    unanswered: result.unanswered,
  };
}

const progressEvents = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  stdioTarget = `${process.execPath} ${await buildStdioFixture()}`;
  // Builds the CLI on first use (bin/nest-mcp.mjs compiles it when missing or stale).
  expect((await runCli(['--version'])).stdout).toBe('0.1.0\n');
  http = await startApp('express', { imports: [StdioFixtureModule] });
}, 180_000);

afterAll(async () => {
  await http?.close();
});

describe('nest-mcp in a pipe', () => {
  it('prints NDJSON ProgressEvents on stderr and the result as one JSON line on stdout', async () => {
    const run = await runCli(['call', '--stdio', stdioTarget, 'count', '--arg', 'n=4', '--arg', 'delayMs=5']);
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      structuredContent: { counted: 4 },
      content: [{ type: 'text', text: '{"counted":4}' }],
    });

    const events = progressEvents(run.stderr);
    expect(events.map((event) => Object.keys(event))).toEqual(
      Array(4).fill(['type', 'progress', 'total', 'message', 'timestamp', 'traceId', 'spanId']),
    );
    expect(events.map((event) => [event.progress, event.total, event.message])).toEqual(
      [1, 2, 3, 4].map((step) => [step, 4, `counted ${step} of 4`]),
    );
    // One trace for the whole command: the traceparent the CLI sent with the request.
    expect(new Set(events.map((event) => `${event.traceId}/${event.spanId}`)).size).toBe(1);
    expect(events[0].traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers elicitations from --answer, and says which one is missing otherwise', async () => {
    const answered = await runCli([
      'call',
      '--stdio',
      stdioTarget,
      'confirm_action',
      '--arg',
      'action=deploy',
      '--answer',
      'confirm={"confirm":true,"note":"scripted"}',
    ]);
    expect(answered.code).toBe(0);
    expect(JSON.parse(answered.stdout).content).toEqual([{ type: 'text', text: 'deploy: done (scripted)' }]);
    // The MRTR retry replays the first two steps; the NDJSON stream still only goes forward.
    expect(progressEvents(answered.stderr).map((event) => event.message)).toEqual([
      'preparing',
      'checking',
      'answered',
    ]);

    const declined = await runCli([
      'call',
      http.mcpUrl.href,
      'confirm_action',
      '--json',
      '{"action":"drop"}',
      '--answer',
      'confirm=decline',
    ]);
    expect(declined.code).toBe(0);
    expect(JSON.parse(declined.stdout).content).toEqual([{ type: 'text', text: 'drop: decline' }]);

    const missing = await runCli(['call', http.mcpUrl.href, 'confirm_action', '--arg', 'action=deploy']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trimEnd().split('\n').at(-1)).toBe(
      `nest-mcp: input required: "confirm" (Run deploy?); pass --answer confirm='{"confirm":"…","note":"…"}'`,
    );
  });

  it('lists tools, reads a resource and gets a prompt over HTTP', async () => {
    const tools = await runCli(['tools', http.mcpUrl.href]);
    expect(tools.code).toBe(0);
    expect(JSON.parse(tools.stdout).tools.map((tool: { name: string }) => tool.name)).toEqual([
      'chatty',
      'confirm_action',
      'count',
      'notes',
      'wait_for_cancel',
      'wrap_command',
    ]);

    const read = await runCli(['read', http.mcpUrl.href, 'fixture://readme']);
    expect(JSON.parse(read.stdout).contents).toEqual([
      { uri: 'fixture://readme', mimeType: 'text/plain', text: 'The stdio fixture.' },
    ]);

    const prompt = await runCli(['prompt', http.mcpUrl.href, 'greet', '--arg', 'who=Ada']);
    expect(JSON.parse(prompt.stdout).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } },
    ]);
  });

  it('exits non-zero with one line on stderr for every kind of failure', async () => {
    const cases: [string[], number, RegExp][] = [
      [['call', http.mcpUrl.href, 'nope'], 1, /^nest-mcp: Unknown tool: nope$/],
      [
        ['call', http.mcpUrl.href, 'count', '--arg', 'n=0'],
        1,
        /^nest-mcp: tool error: Invalid arguments for tool "count"/,
      ],
      [
        ['call', http.mcpUrl.href, 'count', '--arg', 'n=lots'],
        2,
        /^nest-mcp: --arg n must be a number, got "lots" \(see nest-mcp --help\)$/,
      ],
      [['tools', 'http://127.0.0.1:9/mcp'], 1, /^nest-mcp: .*fetch failed/],
      [
        ['tools', '--stdio', 'definitely-not-a-command-4711'],
        1,
        /^nest-mcp: spawn definitely-not-a-command-4711 ENOENT$/,
      ],
      [['frobnicate'], 2, /^nest-mcp: unknown command "frobnicate"/],
    ];
    for (const [args, code, line] of cases) {
      const run = await runCli(args);
      expect({ args, code: run.code }).toEqual({ args, code });
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(line);
    }
    // A tool error still prints the result, for programs that want the details.
    const toolError = await runCli(['call', http.mcpUrl.href, 'count', '--arg', 'n=0']);
    expect(JSON.parse(toolError.stdout).isError).toBe(true);
  });
});

describe('nest-mcp in a terminal', () => {
  it('draws a live progress bar on one line, then prints the result', async () => {
    const run = await runCliInTerminal(['call', http.mcpUrl.href, 'count', '--arg', 'n=4', '--arg', 'delayMs=40']);
    expect(run.status).toBe(0);
    const { screen } = run;
    // The bar is redrawn in place (carriage return + erase line), with the cursor hidden meanwhile.
    expect(screen.startsWith('\x1b[?25l\r\x1b[2Kcount [')).toBe(true);
    for (const [percent, step] of [
      [' 25%', 1],
      [' 50%', 2],
      [' 75%', 3],
      ['100%', 4],
    ] as const) {
      expect(screen).toContain(`] ${percent} counted ${step} of 4`);
    }
    const frames = screen.split('\r\x1b[2K').filter((frame) => frame.startsWith('count ['));
    expect(frames).toHaveLength(4);
    for (const frame of frames) expect(frame).not.toContain('\n');
    expect(screen).toContain('\x1b[?25h');
    expect(screen.trimEnd().endsWith('{"counted":4}')).toBe(true);
    expect(screen).not.toContain('{"type":"progress"');
  });

  it('asks an elicitation as a form, then goes on with the bar', async () => {
    const run = await runCliInTerminal(
      ['call', '--stdio', stdioTarget, 'confirm_action', '--arg', 'action=deploy'],
      [
        ['Go ahead\\?', 'maybe'],
        ['answer y or n', 'y'],
        ['A note', 'shipped'],
        ['Send\\?', ''],
      ],
    );
    expect(run.unanswered).toEqual([]);
    expect(run.status).toBe(0);
    const { screen } = run;
    const question = screen.indexOf('? Run deploy?');
    expect(question).toBeGreaterThan(screen.indexOf('] 66% checking'));
    expect(screen.indexOf('] 100% answered')).toBeGreaterThan(question);
    expect(screen).toContain('Go ahead? \x1b[2m(y/n, default false)');
    expect(screen).toContain('A note \x1b[2m(optional)');
    expect(screen.trimEnd().endsWith('deploy: done (shipped)')).toBe(true);
  });
});
