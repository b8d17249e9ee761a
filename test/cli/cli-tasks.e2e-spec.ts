import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliTaskProbe, CliTasksFixtureModule } from '../fixtures/cli-tasks.fixture.js';
import { startApp, type RunningApp } from '../support/app.factory.js';

/**
 * `nest-mcp call` on a task tool (tasks extension): the task's status live on one terminal line, Ctrl+C cancels the
 * task on the server, and in a pipe NDJSON status lines and the result.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/nest-mcp.mjs');
const PTY_DRIVER = join(ROOT, 'test/support/pty.driver.py');
/** The fixture as a stdio server, through the SWC loader (no build step). */
const STDIO_TARGET = [
  process.execPath,
  '--import',
  join(ROOT, 'test/support/ts-child.loader.mjs'),
  join(ROOT, 'test/fixtures/cli-tasks-main.fixture.ts'),
].join(' ');

let http: RunningApp;

beforeAll(async () => {
  // Builds the CLI on first use (bin/nest-mcp.mjs compiles it when missing or stale).
  await promisify(execFile)(process.execPath, [BIN, '--version'], { cwd: ROOT, timeout: 120_000 });
  http = await startApp('express', { imports: [CliTasksFixtureModule] });
}, 180_000);

afterAll(async () => {
  await http?.close();
});

describe('nest-mcp call on a task tool', () => {
  it('shows the status live on a terminal, and Ctrl+C cancels the task and exits with 130', async () => {
    // Ctrl+C (the driver adds a harmless Enter) as soon as the status line shows.
    const spec = {
      argv: [process.execPath, BIN, 'call', http.mcpUrl.href, 'watch_job', '--arg', 'label=ctrl-c'],
      replies: [['working: watching ctrl-c', '\x03']],
      columns: 100,
      timeout: 60,
      env: { TERM: 'xterm-256color' },
    };
    const { stdout } = await promisify(execFile)('python3', [PTY_DRIVER, JSON.stringify(spec)], {
      cwd: ROOT,
      timeout: 90_000,
    });
    const run = JSON.parse(stdout) as { output: string; status: number; unanswered: string[] };
    const screen = Buffer.from(run.output, 'base64').toString('utf8');

    expect(run.unanswered).toEqual([]);
    // The server's escape sequence is shown escaped, never sent to the terminal.
    expect(screen).toContain('watch_job working: watching ctrl-c\\x1b]0;pwned\\x07');
    expect(screen).not.toContain('\x1b]0;');
    expect(screen).toMatch(/nest-mcp: interrupted: task \S+ cancelled/);
    expect(run.status).toBe(130);
    // The server saw the cancel: the handler's signal fired.
    await expect.poll(() => http.app.get(CliTaskProbe).cancelled.has('ctrl-c'), { timeout: 5_000 }).toBe(true);
  });

  it('writes NDJSON status lines in a pipe, and the result as one JSON line', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [BIN, 'call', http.mcpUrl.href, 'watch_job', '--arg', 'label=piped', '--arg', 'ms=300'],
      {
        cwd: ROOT,
        timeout: 60_000,
      },
    );
    expect(JSON.parse(stdout)).toMatchObject({ content: [{ type: 'text', text: 'watched piped' }] });
    const statuses = stderr
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { task: { status: string; statusMessage?: string } }).task);
    expect(statuses[0].status).toBe('working');
    expect(statuses).toContainEqual(
      expect.objectContaining({ status: 'working', statusMessage: 'watching piped\x1b]0;pwned\x07' }),
    );
    expect(statuses.at(-1)?.status).toBe('completed');
  });

  it.each([
    ['http', () => [http.mcpUrl.href]],
    ['stdio', () => ['--stdio', STDIO_TARGET]],
  ])("answers the task's input requests (tasks/update) from --answer (%s)", async (_name, target) => {
    const args = [BIN, 'call', ...target(), 'ask_job', '--answer', 'go={"confirm":true}'];
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, timeout: 60_000 });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'went ahead' }] });
    expect(result).not.toHaveProperty('resultType');
    expect(stderr).toContain('"status":"input_required"');
  });
});
