import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `nest-mcp/progress` (issue #29, item 4): the `ProgressEvent` contract importable without loading the server, so a
 * command a tool wraps writes its events cheaply. The docs' example command (docs/examples/stdio/reindex.command.ts)
 * runs as a real child process, its TypeScript compiled on the fly (test/support/ts-child.loader.mjs), with hooks
 * that record every module it loads; the same writer imported from `nest-mcp/backend` shows what the entry spares.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const COMMAND = 'docs/examples/stdio/reindex.command.ts';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const work = mkdtempSync(join(tmpdir(), 'nest-mcp-progress-entry-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `script` (a file, or `--eval` code) in a child with the module trace on; what it printed and loaded. */
async function traced(name: string, args: string[], env: Record<string, string> = {}) {
  const traceFile = join(work, `${name}.trace`);
  const hooks = ['--import', './test/support/ts-child.loader.mjs', '--import', './test/support/module-trace.hooks.mjs'];
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [...hooks, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, MODULE_TRACE_FILE: traceFile },
  });
  // Repository-relative paths (node:… built-ins as they are), the hooks' own files left out.
  const loaded = readFileSync(traceFile, 'utf8')
    .trim()
    .split('\n')
    .map((url) => (url.startsWith('file:') ? relative(ROOT, fileURLToPath(url)) : url))
    .filter((path) => !path.startsWith('test/support/'));
  return { stdout, stderr, loaded: [...new Set(loaded)] };
}

describe('nest-mcp/progress', () => {
  it('a wrapped command writes valid ProgressEvent lines, with the trace ids of TRACEPARENT, loading no Nest and nothing of the server', {
    timeout: 60_000,
  }, async () => {
    const run = await traced('command', [COMMAND, 'a.md', 'b.md', 'c.md'], { TRACEPARENT });
    expect(JSON.parse(run.stdout)).toEqual({ indexed: 3 });
    const events = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events).toEqual(
      ['a.md', 'b.md', 'c.md'].map((file, index) => ({
        type: 'progress',
        progress: index + 1,
        total: 3,
        message: `Indexed ${file}`,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
      })),
    );
    expect(Object.keys(events[0])).toEqual(['type', 'progress', 'total', 'message', 'timestamp', 'traceId', 'spanId']);

    // Every module but the command itself and Node's built-ins: the entry's folder and two pure helpers, no package.
    const modules = run.loaded.filter((path) => path !== COMMAND && !path.startsWith('node:'));
    expect(modules.filter((path) => !path.startsWith('libs/mcp/src/progress/'))).toEqual([
      'libs/mcp/src/protocol/traceparent.parser.ts',
      'libs/mcp/src/protocol/json-object.util.ts',
    ]);
    expect(modules.some((path) => path.includes('node_modules'))).toBe(false);
    expect(modules.length).toBeLessThanOrEqual(12);
  });

  it('the same writer imported from nest-mcp/backend loads Nest and the server (what the entry spares a command)', {
    timeout: 60_000,
  }, async () => {
    const run = await traced('full', [
      '--input-type=module',
      '--eval',
      "import { ProgressEventWriter } from 'nest-mcp/backend'; console.log(typeof ProgressEventWriter);",
    ]);
    expect(run.stdout.trim()).toBe('function');
    expect(run.loaded.some((path) => path.startsWith('node_modules/@nestjs/common/'))).toBe(true);
    expect(run.loaded.filter((path) => path.startsWith('libs/mcp/src/')).length).toBeGreaterThan(100);
  });

  it('exports the contract and the emitters: the same objects as nest-mcp/backend (the codec) and nest-mcp (the emitters)', async () => {
    const [entry, backend, app] = await Promise.all([
      import('nest-mcp/progress'),
      import('nest-mcp/backend'),
      import('nest-mcp'),
    ]);
    for (const name of [
      'createProgressEvent',
      'formatProgressEvent',
      'parseProgressLine',
      'ProgressEventWriter',
    ] as const) {
      expect(entry[name], name).toBe(backend[name]);
    }
    for (const name of [
      'DoubleProgress',
      'LongProgress',
      'CountingProgress',
      'PercentProgress',
      'IllegalProgressError',
    ] as const) {
      expect(entry[name], name).toBe(app[name]);
    }
  });
});
