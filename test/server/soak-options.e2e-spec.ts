import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The soak's command line (issue #29, item 4): `npm run soak -- --help` prints the options instead of starting a run,
 * durations take a unit, and a mistake stops the script (exit code 2, one line naming it) before it builds or
 * starts anything — no `[soak]` line, which every step of a run prints.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const soak = (...args: string[]) => run(process.execPath, ['scripts/soak.mjs', ...args]);

describe('npm run soak: options', () => {
  it('`npm run soak -- --help` prints the usage, every option with its default, and exits 0 without starting a run', {
    timeout: 60_000,
  }, async () => {
    const ran = await run('npm', ['run', '--silent', 'soak', '--', '--help']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^usage: npm run soak -- \[options\]/);
    for (const option of [
      '--duration <d>',
      '--concurrency <n>',
      '--report-every <d>',
      '--warmup <d>',
      '--rss-growth-mb <n>',
      '--mix <j,s,m>',
      '--seed <n>',
      '--allow-server-errors',
      '-h, --help',
    ]) {
      expect(ran.stdout).toContain(option);
    }
    expect(ran.stdout).toContain('durations take a unit: 1500ms, 30s, 10m, 1h');
    expect(ran.stdout + ran.stderr).not.toContain('[soak]');
    expect((await soak('-h')).stdout).toBe(ran.stdout);
  });

  it.each([
    [['--duration', '60'], '--duration takes a duration with a unit, such as 30s, 10m or 1h (got "60")'],
    [['--warmup=ten'], '--warmup takes a duration with a unit, such as 30s, 10m or 1h (got "ten")'],
    [['--duration'], '--duration needs a value'],
    [['--durations', '1m'], 'unknown option "--durations"'],
    [['10m'], 'unexpected argument "10m"'],
    [['--concurrency', '0'], '--concurrency takes a whole number of at least 1 (got "0")'],
    [['--mix', '1,2'], '--mix takes three weights, json,streaming,mrtr, not all zero (such as 50,25,25)'],
    [['--allow-server-errors=yes'], '--allow-server-errors takes no value'],
  ])('%j stops with exit code 2 and names the mistake, before building or starting anything', async (args, message) => {
    const ran = await soak(...args);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(`soak: ${message}\nRun \`npm run soak -- --help\` for the options.\n`);
    expect(ran.stdout).toBe('');
  });
});
