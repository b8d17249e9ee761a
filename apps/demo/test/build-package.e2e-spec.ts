import type { Client } from '@modelcontextprotocol/client';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../../../test/support/app.factory.js';
import { connectClient } from '../../../test/support/mcp-client.factory.js';
import { AppModule } from '../src/app.module.js';

/**
 * `build_package` (issue #29, item 4): the demo wraps a real command, scripts/build.mjs, run as a child process; the
 * NDJSON progress it writes on stderr reaches the official client as MCP progress, one notification per compiled
 * file, and cancelling the call kills the command. On both adapters.
 */

/** The TypeScript sources scripts/build.mjs compiles under `dir` (specs aside), sorted. */
function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return sourcesOf(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
    })
    .sort();
}

/** The build folders of the tool left in the temporary directory. */
const leftovers = () => readdirSync(tmpdir()).filter((name) => name.startsWith('ops-console-build-'));

describe.each(ADAPTERS)("build_package: a wrapped command's progress as MCP progress (%s)", (adapter) => {
  let running: RunningApp;
  let client: Client;
  let before: string[];

  beforeAll(async () => {
    before = leftovers();
    running = await startApp(adapter, { imports: [AppModule] });
    client = await connectClient(running.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  it('relays one progress notification per compiled file, in order, and answers the build report', {
    timeout: 60_000,
  }, async () => {
    const files = sourcesOf('libs/cli/src');
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool(
      { name: 'build_package', arguments: { package: 'cli' } },
      { onprogress: (event) => void progress.push(event) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      package: 'cli',
      files: files.length,
      bytes: expect.any(Number),
      durationMs: expect.any(Number),
    });
    expect(progress.map((event) => event.progress)).toEqual(files.map((_, index) => index + 1));
    expect(new Set(progress.map((event) => event.total))).toEqual(new Set([files.length]));
    expect(progress.map((event) => event.message?.replace(/^Compiled /, '')).sort()).toEqual(files);
    expect(leftovers()).toEqual(before); // its build folder is removed
  });

  it('refuses a package it does not know with a tool error naming the field, before starting anything', async () => {
    const progress: unknown[] = [];
    const result = await client.callTool(
      { name: 'build_package', arguments: { package: '../../etc' } },
      { onprogress: (event) => void progress.push(event) },
    );
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toContain('package');
    expect(progress).toEqual([]);
    expect(leftovers()).toEqual(before);
  });

  it('cancelling the call kills the command: no more progress, and the build folder is removed', {
    timeout: 60_000,
  }, async () => {
    const controller = new AbortController();
    const progress: number[] = [];
    const call = client.callTool(
      { name: 'build_package', arguments: { package: 'mcp' } },
      {
        signal: controller.signal,
        onprogress: (event) => void (progress.push(event.progress), progress.length === 3 && controller.abort()),
      },
    );
    await expect(call).rejects.toThrow();
    const seen = progress.length;
    // The command is killed, and its temporary folder goes with the call.
    const deadline = Date.now() + 10_000;
    while (leftovers().length > before.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(leftovers()).toEqual(before);
    expect(seen).toBeLessThan(sourcesOf('libs/mcp/src').length);
  });
});
