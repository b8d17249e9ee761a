import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityProgressModule } from '../fixtures/security-progress.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient, type LegacyConnection } from '../support/legacy-client.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { expectResult, messagesOf, textOf } from '../support/wire-response.util.js';

/**
 * Issue #13, item 8: the values sent on one progress token strictly increase (spec: progress MUST increase with each
 * notification), however many emitters a handler creates and whether `ctx.progressFrom` reports as well. A report
 * that would go back throws `IllegalProgressError` in the handler (caught or not), and never reaches the client.
 */

interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

const strictlyIncreasing = (values: readonly number[]) =>
  values.every((value, index) => index === 0 || value > values[index - 1]);

describe.each(ADAPTERS)('progress on one token never goes back (%s)', (adapter) => {
  let running: RunningApp;
  let client: Client;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [SecurityProgressModule] });
    client = await connectClient(running.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  /** Calls `name` with a progress token on the raw wire; returns the progress params in order and the tool result. */
  async function rawCall(name: string, token: string) {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name, arguments: {} },
      meta: requestMeta({ progressToken: token }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = messagesOf(response, 'tools/call');
    const progress = messages
      .filter((message) => message.method === 'notifications/progress')
      .map((message) => message.params as unknown as ProgressParams);
    for (const params of progress) expect(params.progressToken).toBe(token);
    expect(messages.at(-1)!.id).toBe(response.sentId);
    return { progress, result: messages.at(-1)!.result as { content: unknown; isError?: boolean } };
  }

  /** The server still serves an ordinary call afterwards. */
  async function stillServes(): Promise<void> {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'twoEmitters', arguments: {} },
    });
    expect(textOf(expectResult(response, 'tools/call'))).toBe('refused 2');
  }

  it('two emitters, interleaved: the lower reports are refused in the handler and never sent', async () => {
    const { progress, result } = await rawCall('twoEmitters', 'two');
    expect(progress.map((params) => [params.progress, params.message])).toEqual([
      [10, 'first 10'],
      [20, 'first 20'],
      [25, 'second 25'],
      [30, 'first 30'],
      [35, 'second 35'],
    ]);
    expect(textOf(result)).toBe('refused 2');
    await stillServes();
  });

  it('two concurrent loops with their own emitters: what the client gets strictly increases', async () => {
    const { progress, result } = await rawCall('racingEmitters', 'race');
    const values = progress.map((params) => params.progress);
    expect(values.length).toBeGreaterThan(10);
    expect(strictlyIncreasing(values)).toBe(true);
    // 120 reports in all: every one either went out or was refused in the handler.
    expect(values.length + Number(/^refused (\d+)$/.exec(textOf(result))![1])).toBe(120);
    await stillServes();
  });

  it('an emitter, then progressFrom: the command line below the emitter is skipped, the one above is sent', async () => {
    const { progress, result } = await rawCall('emitterThenCommand', 'relay');
    expect(progress.map((params) => [params.progress, params.message])).toEqual([
      [50, 'own work'],
      [60, 'command 60'],
    ]);
    expect(textOf(result)).toBe('relayed');
    await stillServes();
  });

  it('an uncaught restart on a second emitter fails the call like any illegal value: isError result, nothing sent back', async () => {
    const { progress, result } = await rawCall('restartingEmitter', 'restart');
    expect(progress.map((params) => params.progress)).toEqual([5]);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Tool "restartingEmitter" failed with an internal error' }],
    });
    await stillServes();
  });

  it('without a token the handler meets the same refusals (same result), and the answer is plain JSON', async () => {
    for (const [name, expected] of [
      ['twoEmitters', 'refused 2'],
      ['emitterThenCommand', 'relayed'],
    ] as const) {
      const response = await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name, arguments: {} } });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(textOf(expectResult(response, 'tools/call'))).toBe(expected);
    }
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'restartingEmitter', arguments: {} },
    });
    expect(expectResult<{ isError?: boolean }>(response, 'tools/call').isError).toBe(true);
    await stillServes();
  });

  it('the official client sees strictly increasing progress for each call', async () => {
    for (const name of ['twoEmitters', 'racingEmitters', 'emitterThenCommand']) {
      const seen: number[] = [];
      await client.callTool(
        { name, arguments: {} },
        { onprogress: (params: { progress: number }) => seen.push(params.progress) },
      );
      expect(seen.length, name).toBeGreaterThan(1);
      expect(strictlyIncreasing(seen), `${name}: ${seen.join(', ')}`).toBe(true);
    }
  });

  describe('on the 2025-11-25 wire', () => {
    let legacy: LegacyConnection;
    beforeAll(async () => {
      legacy = await connectLegacyClient(running.mcpUrl);
    });
    afterAll(async () => {
      await legacy?.client.close();
    });

    it('the session client sees strictly increasing progress too', async () => {
      for (const name of ['twoEmitters', 'racingEmitters', 'emitterThenCommand']) {
        const seen: number[] = [];
        await legacy.client.callTool(
          { name, arguments: {} },
          { onprogress: (params: { progress: number }) => seen.push(params.progress) },
        );
        expect(seen.length, name).toBeGreaterThan(1);
        expect(strictlyIncreasing(seen), `${name}: ${seen.join(', ')}`).toBe(true);
      }
    });
  });
});
