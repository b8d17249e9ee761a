import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { CatalogModule } from '../fixtures/catalog.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';

describe.each(ADAPTERS)('smoke (%s)', (adapter) => {
  let running: RunningApp;
  let client: Client;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [CatalogModule] });
    client = await connectClient(running.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  it('lists and calls a tool', async () => {
    const tools = await client.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.structuredContent).toEqual({ sum: 5 });
  });
});
