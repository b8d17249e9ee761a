import { Inject, Injectable, Module, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import type { Client } from '@modelcontextprotocol/client';
import { McpModule, McpTool } from 'nest-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';

let instances = 0;

// #region docs:per-call-tools
/** A request-scoped host: Nest builds one per call and injects the HTTP request. */
@Injectable({ scope: Scope.REQUEST })
class PerCallTools {
  private readonly serial = ++instances;

  constructor(@Inject(REQUEST) private readonly request: { headers: Record<string, string | undefined> }) {}

  @McpTool({ description: 'Which instance served this call, and for whom' })
  whoAmI() {
    return { instance: this.serial, agent: this.request.headers['x-caller'] ?? 'unknown' };
  }
}
// #endregion docs:per-call-tools

@Module({
  imports: [McpModule.forRoot({ name: 'scoped', version: '1.0.0' })],
  providers: [PerCallTools],
})
class ScopedModule {}

describe.each(ADAPTERS)('request-scoped providers (%s)', (adapter) => {
  let running: RunningApp;
  let client: Client;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [ScopedModule] });
    const withCaller: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-caller', 'e2e');
      return fetch(input, { ...init, headers });
    };
    client = await connectClient(running.mcpUrl, { fetch: withCaller });
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  it('resolves a fresh instance per call, with the HTTP request injected', async () => {
    const first = await client.callTool({ name: 'whoAmI', arguments: {} });
    const second = await client.callTool({ name: 'whoAmI', arguments: {} });
    const a = first.structuredContent as { instance: number; agent: string };
    const b = second.structuredContent as { instance: number; agent: string };
    expect(a.agent).toBe('e2e');
    expect(b.agent).toBe('e2e');
    expect(b.instance).toBeGreaterThan(a.instance);
  });
});
