import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { McpEvents } from 'nest-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStreamService } from '../../libs/mcp/src/events/event-stream.service.js';
import { EventsFixtureModule } from '../fixtures/events.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { until } from '../support/wait.util.js';

/**
 * `nest-mcp events` (bin/nest-mcp.mjs) as a user runs it, in a pipe, against the events fixture over HTTP on both
 * adapters: the catalog, one poll and a resumed one, and `--follow` — a push stream, or polling with `--poll` —
 * printing one NDJSON line per event until Ctrl+C.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/nest-mcp.mjs');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

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

/** `nest-mcp events … --follow` in a pipe: its stdout lines as they come, and how to stop it with Ctrl+C (SIGINT). */
function follow(args: string[]): {
  child: ChildProcess;
  lines: () => Record<string, any>[];
  stderr: () => string;
  interrupt(): Promise<number | null>;
} {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines: () =>
      stdout
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, any>),
    stderr: () => stderr,
    interrupt: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

beforeAll(async () => {
  // Builds the CLI on first use (bin/nest-mcp.mjs compiles it when missing or stale).
  expect((await runCli(['--version'])).code).toBe(0);
}, 180_000);

describe.each(ADAPTERS)('nest-mcp events (%s)', (adapter) => {
  let server: RunningApp;
  const url = () => server.mcpUrl.href;
  const emit = (name: string, data: object, eventId: string) => server.app.get(McpEvents).emit(name, data, { eventId });

  beforeAll(async () => {
    server = await startApp(adapter, { imports: [EventsFixtureModule.forRoot({ events: { pollIntervalMs: 100 } })] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('without a name: the catalog as one JSON line', async () => {
    const run = await runCli(['events', url()]);
    expect(run.code, run.stderr).toBe(0);
    const catalog = JSON.parse(run.stdout) as { events: Array<{ name: string; delivery: string[] }> };
    expect(catalog.events.map((type) => type.name)).toEqual(
      expect.arrayContaining(['incident.opened', 'deploy.finished']),
    );
    expect(catalog.events.find((type) => type.name === 'deploy.finished')!.delivery).toEqual(['push', 'webhook']);
  });

  it('with a name: one poll from now, then from --cursor, with arguments typed by the inputSchema', async () => {
    const start = await runCli(['events', url(), 'incident.opened', '--arg', 'severity=P1']);
    expect(start.code, start.stderr).toBe(0);
    const first = JSON.parse(start.stdout);
    expect(first).toMatchObject({ events: [], truncated: false, cursor: expect.any(String) });
    await emit('incident.opened', { id: 'C-1', severity: 'P1', service: 'cli', title: 'One' }, 'evt_cli_1');
    await emit('incident.opened', { id: 'C-2', severity: 'P2', service: 'cli', title: 'Other severity' }, 'evt_cli_2');
    const next = JSON.parse(
      (await runCli(['events', url(), 'incident.opened', '--arg', 'severity=P1', '--cursor', first.cursor])).stdout,
    );
    expect(next.events.map((event: { eventId: string }) => event.eventId)).toEqual(['evt_cli_1']);
    // The cursor is bound to its arguments: another filter is refused, with the server's reason.
    const refused = await runCli([
      'events',
      url(),
      'incident.opened',
      '--arg',
      'severity=P2',
      '--cursor',
      first.cursor,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^nest-mcp: .*cursor/i);
  });

  it('--follow on a type with push: one NDJSON line per matching event, until Ctrl+C (exit 130)', async () => {
    const streams = server.app.get(EventStreamService);
    const before = streams.openStreams;
    const run = follow(['events', url(), 'incident.opened', '--arg', 'service=follow', '--follow']);
    try {
      await until(() => streams.openStreams === before + 1, 20_000, 'the CLI to open its push stream');
      await emit('incident.opened', { id: 'F-1', severity: 'P1', service: 'follow', title: 'First' }, 'evt_follow_1');
      await emit(
        'incident.opened',
        { id: 'F-x', severity: 'P1', service: 'elsewhere', title: 'Not ours' },
        'evt_follow_x',
      );
      await emit(
        'incident.opened',
        { id: 'F-2', severity: 'P3', service: 'follow', title: 'Second \u001b[31mred' },
        'evt_follow_2',
      );
      await until(() => run.lines().length >= 2, 10_000, 'two event lines');
    } finally {
      expect(await run.interrupt()).toBe(130);
    }
    const lines = run.lines();
    expect(lines.map((line) => line.eventId)).toEqual(['evt_follow_1', 'evt_follow_2']);
    expect(lines[0]).toEqual({
      eventId: 'evt_follow_1',
      name: 'incident.opened',
      timestamp: expect.any(String),
      data: { incidentId: 'F-1', severity: 'P1', title: 'First' },
      cursor: expect.any(String),
    });
    expect(lines[1].data.title).toBe('Second \u001b[31mred');
    expect(run.stderr()).toContain('nest-mcp: interrupted');
    await until(() => streams.openStreams === before, 5_000, 'the stream to close on the server');
    // The last line's cursor resumes where the stream stopped.
    const resumed = JSON.parse(
      (await runCli(['events', url(), 'incident.opened', '--arg', 'service=follow', '--cursor', lines[1].cursor]))
        .stdout,
    );
    expect(resumed).toMatchObject({ events: [], truncated: false });
  });

  it('--follow --poll polls at nextPollMs from --cursor; a live-only type follows by its stream', async () => {
    const start = JSON.parse((await runCli(['events', url(), 'incident.opened', '--arg', 'service=polled'])).stdout);
    await emit('incident.opened', { id: 'P-0', severity: 'P2', service: 'polled', title: 'Before' }, 'evt_polled_0');
    const run = follow([
      'events',
      url(),
      'incident.opened',
      '--arg',
      'service=polled',
      '--cursor',
      start.cursor,
      '--follow',
      '--poll',
    ]);
    try {
      await until(() => run.lines().length >= 1, 20_000, 'the event from before');
      await emit('incident.opened', { id: 'P-1', severity: 'P2', service: 'polled', title: 'After' }, 'evt_polled_1');
      await until(() => run.lines().length >= 2, 10_000, 'the next poll');
    } finally {
      expect(await run.interrupt()).toBe(130);
    }
    expect(run.lines().map((line) => line.eventId)).toEqual(['evt_polled_0', 'evt_polled_1']);

    const streams = server.app.get(EventStreamService);
    const before = streams.openStreams;
    const live = follow(['events', url(), 'deploy.finished', '--follow']);
    try {
      await until(() => streams.openStreams === before + 1, 20_000, 'the CLI to open its push stream');
      await emit('deploy.finished', { service: 'api', version: '1.2.3' }, 'evt_deploy_cli');
      await until(() => live.lines().length >= 1, 10_000, 'the deploy event');
    } finally {
      expect(await live.interrupt()).toBe(130);
    }
    expect(live.lines()).toEqual([
      {
        eventId: 'evt_deploy_cli',
        name: 'deploy.finished',
        timestamp: expect.any(String),
        data: { service: 'api', version: '1.2.3' },
        cursor: null,
      },
    ]);
  });

  it('says what is wrong: an unknown type (exit 1), --follow without a name and --poll without --follow (usage, exit 2)', async () => {
    const unknown = await runCli(['events', url(), 'no.such.type']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no event type named "no.such.type"');
    const noName = await runCli(['events', url(), '--follow']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--follow needs an event type');
    const pollAlone = await runCli(['events', url(), 'incident.opened', '--poll']);
    expect(pollAlone.code).toBe(2);
    const elsewhere = await runCli(['tools', url(), '--follow']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('--follow does not apply to tools');
  });
});
