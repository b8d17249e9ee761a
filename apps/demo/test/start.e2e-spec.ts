import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient } from '../../../test/support/mcp-client.factory.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The script may have to run `nest build demo` first, which takes 10–20 s on two cores. */
const START_TIMEOUT_MS = 120_000;
const MCP_URL = /http:\/\/127\.0\.0\.1:\d+\/mcp/;

/** Resolves with the first MCP URL the process prints, or rejects if it exits or times out first. */
function waitForUrl(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no MCP URL after ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output.stdout += chunk.toString();
      const url = MCP_URL.exec(output.stdout)?.[0];
      if (url) done(() => resolve(url));
    };
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`start-demo exited early (code ${code}, signal ${signal}):\n${output.stderr}`));
    const fail = (error: Error) => done(() => reject(error));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      settle();
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

describe('npm start (scripts/start-demo.mjs)', () => {
  let child: ChildProcess | undefined;
  let client: Client | undefined;

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it(
    'builds if needed, serves MCP on the printed URL, and stops on SIGTERM',
    async () => {
      const output = { stdout: '', stderr: '' };
      child = spawn(process.execPath, ['scripts/start-demo.mjs'], {
        cwd: ROOT,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));

      const url = await waitForUrl(child, output);
      expect(output.stdout).toContain('MCP server (express) listening on');

      client = await connectClient(new URL(url));
      const result = await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ name: 'checkout-api', status: 'running' });
      await client.close();
      client = undefined;

      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      child.kill('SIGTERM');
      const [code, signal] = await exited;
      // Nest's shutdown hook closes the app, then re-raises SIGTERM; the script re-raises what the server died of.
      expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
      // The server is gone with it: its port no longer answers.
      await expect(fetch(url, { method: 'POST', signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    },
    START_TIMEOUT_MS + 30_000,
  );
});
