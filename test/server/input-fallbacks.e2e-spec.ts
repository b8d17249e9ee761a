import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../apps/demo/src/app.module.js';
import { InputFallbacksModule } from '../fixtures/input-fallbacks.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';

/**
 * Fallbacks for clients without a capability (issue #19, item 3): `ctx.supports` tells a handler what the calling
 * client declared — per request on 2026-07-28, per session on 2025-11-25 — and the demo's `summarize_logs` answers a
 * client without sampling with a digest instead of `-32021`. Official client, both wires, both adapters.
 */

const textOf = (result: { content?: unknown }): string => (result.content as Array<{ text: string }>)[0].text;

describe.each(ADAPTERS)('ctx.supports (%s)', (adapter) => {
  let running: RunningApp;
  const clients: Client[] = [];

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [InputFallbacksModule] });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await running?.close();
  });

  async function supportOn(
    wire: 'modern' | 'legacy',
    capabilities: Record<string, unknown>,
  ): Promise<Record<string, boolean>> {
    const client =
      wire === 'modern'
        ? await connectClient(running.mcpUrl, { capabilities })
        : (await connectLegacyClient(running.mcpUrl, { capabilities })).client;
    clients.push(client);
    return JSON.parse(textOf(await client.callTool({ name: 'input_support', arguments: {} })));
  }

  it.each(['modern', 'legacy'] as const)(
    'on the %s wire, reads what the client declared for each kind',
    async (wire) => {
      expect(await supportOn(wire, {})).toEqual({
        form: false,
        url: false,
        sampling: false,
        roots: false,
        samplingWithTools: false,
        rootsRequestAgrees: true,
      });
      // `elicitation: {}` is form mode only.
      expect(await supportOn(wire, { elicitation: {} })).toMatchObject({
        form: true,
        url: false,
        sampling: false,
        roots: false,
      });
      expect(await supportOn(wire, { elicitation: { url: {} }, sampling: {}, roots: {} })).toEqual({
        form: false,
        url: true,
        sampling: true,
        roots: true,
        // A request is the finer test: sampling with tools needs sampling.tools too.
        samplingWithTools: false,
        rootsRequestAgrees: true,
      });
      expect(await supportOn(wire, { elicitation: { form: {} }, sampling: { tools: {} } })).toMatchObject({
        form: true,
        sampling: true,
        samplingWithTools: true,
      });
    },
  );

  it('refuses a kind that does not exist, naming the four', async () => {
    const client = await connectClient(running.mcpUrl);
    clients.push(client);
    expect(textOf(await client.callTool({ name: 'unknown_kind', arguments: {} }))).toBe(
      'TypeError: Unknown input kind "telepathy"; expected one of form, url, sampling, roots, or an McpInput request',
    );
  });
});

describe.each(ADAPTERS)('the demo falls back for a client without sampling (%s)', (adapter) => {
  let running: RunningApp;
  const clients: Client[] = [];

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [AppModule] });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await running?.close();
  });

  /** An official client on `wire`; with `sample`, it declares sampling and answers with a fixed summary. */
  async function demoClient(
    wire: 'modern' | 'legacy',
    sample: boolean,
  ): Promise<{ client: Client; sampled: unknown[] }> {
    const sampled: unknown[] = [];
    const capabilities = sample ? { sampling: {} } : {};
    const setup = (client: Client) => {
      if (!sample) return;
      client.setRequestHandler('sampling/createMessage', async (request) => {
        sampled.push(request.params);
        return {
          role: 'assistant',
          content: { type: 'text', text: 'Deployed 2.3.1 on 4 replicas; nothing unusual.' },
          model: 'test-model',
        };
      });
    };
    let client: Client;
    if (wire === 'modern') {
      client = await connectClient(running.mcpUrl, { capabilities });
      setup(client);
    } else {
      client = (await connectLegacyClient(running.mcpUrl, { capabilities, setup })).client;
    }
    clients.push(client);
    return { client, sampled };
  }

  it.each(['modern', 'legacy'] as const)(
    'on the %s wire: a digest without sampling, the model’s summary with it',
    async (wire) => {
      const plain = await demoClient(wire, false);
      const digest = await plain.client.callTool({ name: 'summarize_logs', arguments: { name: 'payments-worker' } });
      expect(digest.isError).toBeFalsy();
      expect(textOf(digest)).toMatch(
        /^payments-worker has 1 recent log line\(s\); the latest:\n {2}.*deployed version 2\.3\.1 \(4 replicas\)\n\(No summary: this client cannot sample\.\)$/,
      );

      const sampling = await demoClient(wire, true);
      const summary = await sampling.client.callTool({
        name: 'summarize_logs',
        arguments: { name: 'payments-worker' },
      });
      expect(textOf(summary)).toBe(
        'Summary of the payments-worker logs (by test-model): Deployed 2.3.1 on 4 replicas; nothing unusual.',
      );
      expect(sampling.sampled).toEqual([
        expect.objectContaining({
          maxTokens: 200,
          messages: [
            { role: 'user', content: { type: 'text', text: expect.stringContaining('deployed version 2.3.1') } },
          ],
        }),
      ]);
    },
  );
});
