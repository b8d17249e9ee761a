import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensurePinnedRunner } from '../../scripts/pinned-runner.mjs';
import { REPO_ROOT } from './forked-server.js';

/** Where the MCP Inspector (2.12.0) is pinned with the Node 22 it needs. */
const RUNNER = join(REPO_ROOT, 'tools/inspector-runner');

/** How one run of the Inspector CLI ended. */
export interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Installs the pinned Inspector when its lockfile changed since the last install (slow the first time). */
export function ensureInspector(): void {
  ensurePinnedRunner(RUNNER);
}

/**
 * Runs `mcp-inspector --cli …args` from the pinned runner, asynchronously (the server under test runs in this
 * process); fails after 60 s with what it printed.
 */
export function inspector(args: string[]): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['exec', '--', 'mcp-inspector', '--cli', ...args], {
      cwd: RUNNER,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcp-inspector ${args.join(' ')} did not finish in 60 s:\n${stdout}\n${stderr}`));
    }, 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON objects the CLI prints one per line (`--app-info`, `--verify` reports), other lines skipped. */
export function jsonLines<T>(stdout: string): T[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T);
}
