import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { jobProgressLines, wrappedProgressModule } from '../fixtures/wrapped-progress.fixture.js';
import { ADAPTERS, startApp } from '../support/app.factory.js';
import { forkFixtureServer, type ForkedServer } from '../support/forked-server.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { until } from '../support/wait.util.js';

/**
 * Wrapped commands without a progress token (issue #19, item 5): a tool relays a real child process's NDJSON progress
 * with `ctx.progressFrom`. With a token the client gets notifications and the server's stderr nothing; without one
 * the command's progress lines reach the server's stderr unchanged, unless `progressFromWithoutToken: 'drop'` (or
 * the call's `withoutToken: 'drop'`) keeps the old behaviour. The server runs in its own process, so its real stderr
 * is read; the official client calls it, on both adapters.
 */

const ENTRY = 'test/fixtures/wrapped-progress-main.fixture.ts';

interface Running {
  server: ForkedServer;
  client: Client;
  /** Everything the server process wrote to stderr since it started serving, split into lines. */
  stderrLines(): string[];
}

describe.each(ADAPTERS)('ctx.progressFrom without a progress token (%s)', (adapter) => {
  const started: Running[] = [];

  afterEach(async () => {
    for (const { server, client } of started.splice(0)) {
      await client.close().catch(() => undefined);
      server.kill();
    }
  });

  async function start(mode: 'default' | 'drop' | 'progress-stderr'): Promise<Running> {
    const server = await forkFixtureServer(ENTRY, [adapter, mode]);
    let stderr = '';
    server.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = await connectClient(server.url);
    const running = { server, client, stderrLines: () => stderr.split('\n') };
    started.push(running);
    return running;
  }

  async function call(
    running: Running,
    args: Record<string, unknown>,
    onprogress?: (progress: unknown) => void,
  ): Promise<string> {
    const result = await running.client.callTool(
      { name: 'wrapped_job', arguments: args },
      onprogress && { onprogress },
    );
    return (result.content as Array<{ text: string }>)[0].text;
  }

  /** Waits until the server's stderr holds `lines`, one after the other, and returns where they start. */
  async function stderrShows(running: Running, lines: string[]): Promise<number> {
    const at = () =>
      running.stderrLines().findIndex((_, index, all) => lines.every((line, offset) => all[index + offset] === line));
    await until(
      () => at() >= 0,
      10_000,
      `the server's stderr to show ${JSON.stringify(lines)}; it holds ${JSON.stringify(running.stderrLines())}`,
    );
    return at();
  }

  const mentions = (running: Running, run: string) => running.stderrLines().filter((line) => line.includes(run));

  it('writes the command’s progress lines to stderr unchanged without a token, and sends notifications (only) with one', async () => {
    const running = await start('default');
    expect(await call(running, { run: 'quiet-1', steps: 3 })).toBe('job quiet-1 done');
    await stderrShows(running, jobProgressLines('quiet-1', 3));

    const seen: unknown[] = [];
    expect(await call(running, { run: 'loud-1', steps: 3 }, (progress) => seen.push(progress))).toBe('job loud-1 done');
    expect(seen).toEqual(
      [1, 2, 3].map((progress) => ({ progress, total: 3, message: `loud-1 step ${progress} of 3` })),
    );

    // Lines reach stderr in order: once a later call's lines are there, the token call's would have been before them.
    await call(running, { run: 'quiet-2', steps: 2 });
    expect(await stderrShows(running, jobProgressLines('quiet-2', 2))).toBeGreaterThan(
      await stderrShows(running, jobProgressLines('quiet-1', 3)),
    );
    expect(mentions(running, 'loud-1')).toEqual([]);
    // Only the progress lines: the command's other output goes to the Nest logger (off in this fixture).
    expect(mentions(running, 'quiet-1')).toEqual(jobProgressLines('quiet-1', 3));
  });

  it("a call's withoutToken: 'drop' keeps the old behaviour for that call", async () => {
    const running = await start('default');
    expect(await call(running, { run: 'dropped-1', steps: 3, withoutToken: 'drop' })).toBe('job dropped-1 done');
    await call(running, { run: 'after-drop', steps: 1 });
    await stderrShows(running, jobProgressLines('after-drop', 1));
    expect(mentions(running, 'dropped-1')).toEqual([]);
  });

  it("progressFromWithoutToken: 'drop' drops them for every call; a call may still ask for stderr", async () => {
    const running = await start('drop');
    expect(await call(running, { run: 'module-drop', steps: 3 })).toBe('job module-drop done');
    await call(running, { run: 'asked-stderr', steps: 2, withoutToken: 'stderr' });
    await stderrShows(running, jobProgressLines('asked-stderr', 2));
    expect(mentions(running, 'module-drop')).toEqual([]);

    const seen: unknown[] = [];
    await call(running, { run: 'token-drop', steps: 2 }, (progress) => seen.push(progress));
    expect(seen).toHaveLength(2);
  });

  it("with progress: 'stderr' the events are written once, as the server's own ProgressEvents", async () => {
    const running = await start('progress-stderr');
    await call(running, { run: 'formatted', steps: 2 });
    await until(() => mentions(running, 'formatted').length === 2, 10_000, 'two ProgressEvents on stderr');
    await call(running, { run: 'marker-ps', steps: 1 });
    await until(() => mentions(running, 'marker-ps').length === 1, 10_000, 'one more ProgressEvent on stderr');
    const events = mentions(running, 'formatted').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual(
      [1, 2].map((progress) => ({
        type: 'progress',
        progress,
        total: 2,
        message: `formatted step ${progress} of 2`,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      })),
    );
    // Not the command's raw lines as well.
    for (const line of jobProgressLines('formatted', 2)) expect(running.stderrLines()).not.toContain(line);
  });
});

describe('the progressFromWithoutToken option is checked at startup', () => {
  it('refuses a value other than stderr or drop', async () => {
    await expect(
      startApp('express', { imports: [wrappedProgressModule({ progressFromWithoutToken: 'mcp' as never })] }),
    ).rejects.toThrow(`McpModule: option "progressFromWithoutToken" must be 'stderr' or 'drop'`);
  });
});
