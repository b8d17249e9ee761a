import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { loggingDefaultsModule } from '../fixtures/logging-defaults.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient, legacyPost } from '../support/legacy-client.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { recordingFetch } from '../support/wire-schema.validator.js';

/**
 * Logging defaults (issue #19, item 4): `ctx.log(data)` logs at `info` (or `logging.defaultLevel`), and `logging: false`
 * turns the message channel off — no `logging` capability in `server/discover` or the 2025-11-25 `initialize`,
 * `logging/setLevel` unknown, `ctx.log` a no-op. Official client on both wires, both adapters; the log notifications
 * are read from the recorded responses (every frame, whatever the client dispatches).
 */

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

describe.each(ADAPTERS)('logging defaults (%s)', (adapter) => {
  let running: RunningApp | undefined;
  const clients: Client[] = [];

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await running?.close();
    running = undefined;
  });
  /** Starts the fixture with `logging`, calls `notes` at the request's `level`, and returns the logs and the tool's answer. */
  async function callNotes(logging: Parameters<typeof loggingDefaultsModule>[0], level?: string) {
    running = await startApp(adapter, { imports: [loggingDefaultsModule(logging)] });
    const recorder = recordingFetch();
    const client = await connectClient(running.mcpUrl, { fetch: recorder.fetch });
    clients.push(client);
    const result = await client.callTool({
      name: 'notes',
      arguments: { note: 'disk at 91%' },
      ...(level && { _meta: { [LOG_LEVEL]: level } }),
    });
    const recorded = await recorder.settled();
    const logs = recorded.filter((entry) => (entry.message as { method?: string })?.method === 'notifications/message');
    return {
      client,
      returned: JSON.parse((result.content as Array<{ text: string }>)[0].text) as { plain: boolean; warned: boolean },
      logs: logs.map((entry) => (entry.message as { params: unknown }).params),
    };
  }

  it('ctx.log(data) logs at info by default', async () => {
    const { returned, logs, client } = await callNotes(undefined, 'info');
    expect(returned).toEqual({ plain: true, warned: true });
    expect(logs).toEqual([
      { level: 'info', data: { note: 'disk at 91%' } },
      { level: 'warning', logger: 'notes', data: { note: 'disk at 91%', why: 'a second note' } },
    ]);
    expect(client.getServerCapabilities()).toHaveProperty('logging', {});
  });

  it('the default level is below a request asking for warning and above: only the warning is sent', async () => {
    const { returned, logs } = await callNotes(undefined, 'warning');
    expect(returned).toEqual({ plain: false, warned: true });
    expect(logs).toEqual([{ level: 'warning', logger: 'notes', data: { note: 'disk at 91%', why: 'a second note' } }]);
  });

  it('logging.defaultLevel moves the default', async () => {
    const { returned, logs } = await callNotes({ defaultLevel: 'error' }, 'warning');
    expect(returned).toEqual({ plain: true, warned: true });
    expect(logs.map((params) => (params as { level: string }).level)).toEqual(['error', 'warning']);
  });

  it('logging: false — no capability in server/discover, and ctx.log sends nothing even when the request asks', async () => {
    const { returned, logs, client } = await callNotes(false, 'debug');
    expect(client.getServerCapabilities()).not.toHaveProperty('logging');
    expect(client.getServerCapabilities()).toHaveProperty('tools');
    expect(returned).toEqual({ plain: false, warned: false });
    expect(logs).toEqual([]);
  });

  it('logging: false on the 2025-11-25 wire — no capability in initialize, logging/setLevel is an unknown method', async () => {
    running = await startApp(adapter, { imports: [loggingDefaultsModule(false)] });
    const legacy = await connectLegacyClient(running.mcpUrl);
    clients.push(legacy.client);
    expect(legacy.client.getServerCapabilities()).not.toHaveProperty('logging');
    await expect(legacy.client.setLoggingLevel('info')).rejects.toMatchObject({ code: -32601 });
    const raw = await legacyPost(
      running.mcpUrl,
      { id: 'lvl', method: 'logging/setLevel', params: { level: 'info' } },
      { sessionId: legacy.sessionId },
    );
    expect(raw.status).toBe(200);
    expect(raw.messages).toEqual([
      { jsonrpc: '2.0', id: 'lvl', error: { code: -32601, message: 'Method not found: logging/setLevel' } },
    ]);

    const result = await legacy.client.callTool({ name: 'notes', arguments: { note: 'quiet' } });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({ plain: false, warned: false });
    const recorded = await legacy.recorder.settled();
    expect(
      recorded.filter((entry) => (entry.message as { method?: string })?.method === 'notifications/message'),
    ).toEqual([]);
  });

  it('with the channel on, a 2025-11-25 session sets its level and gets ctx.log(data) at info', async () => {
    running = await startApp(adapter, { imports: [loggingDefaultsModule()] });
    const legacy = await connectLegacyClient(running.mcpUrl);
    clients.push(legacy.client);
    expect(legacy.client.getServerCapabilities()).toHaveProperty('logging', {});
    await legacy.client.setLoggingLevel('info');
    const result = await legacy.client.callTool({ name: 'notes', arguments: { note: 'loud' } });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({ plain: true, warned: true });
    const recorded = await legacy.recorder.settled();
    const logs = recorded.filter((entry) => (entry.message as { method?: string })?.method === 'notifications/message');
    expect(logs.map((entry) => (entry.message as { params: { level: string } }).params.level)).toEqual([
      'info',
      'warning',
    ]);
  });
});

describe('the logging option is checked at startup', () => {
  it.each([
    [
      { defaultLevel: 'verbose' },
      /option "logging.defaultLevel" must be one of debug, info, notice, warning, error, critical, alert, emergency/,
    ],
    [true, /option "logging" must be false or \{ defaultLevel\? \}/],
  ])('logging: %j is refused', async (logging, message) => {
    await expect(startApp('express', { imports: [loggingDefaultsModule(logging as never)] })).rejects.toThrow(message);
  });
});
