import type { Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CallIdLogger,
  NestExtrasModule,
  ProfileService,
  UserTools,
} from '../../docs/examples/ecosystem/nest-extras.module.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { listen } from '../support/sse-stream.reader.js';

/**
 * What else a Nest user reaches for, on MCP calls (issue #30): `ClassSerializerInterceptor` shapes structured results
 * (also when they are cached), `@nestjs/event-emitter` listeners publish MCP changes that reach listen streams, and
 * Nest's `Logger` writes the id of the current call through a logger that reads the CLS context of `aroundHandler`.
 */
describe.each(ADAPTERS)('Nest extras on MCP calls (%s)', (adapter) => {
  let running: RunningApp;
  let client: Client;

  beforeEach(async () => {
    running = await startApp(adapter, { imports: [NestExtrasModule] });
    client = await connectClient(running.mcpUrl);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await client.close();
    await running.close();
  });

  it('ClassSerializerInterceptor: the structured result is the serialized view, cached as such', async () => {
    for (let call = 0; call < 2; call++) {
      const result = await client.callTool({ name: 'get_user', arguments: {} });
      expect(result.structuredContent).toEqual({ id: 'u1', name: 'Ada', displayName: 'Ada (u1)' });
      expect(JSON.stringify(result)).not.toContain('secret');
    }
    expect(running.app.get(UserTools).runs).toBe(1);
  });

  it('@nestjs/event-emitter: a listener publishes the change, and listen streams hear it', async () => {
    const stream = await listen(running.mcpUrl, 'profile', { resourceSubscriptions: ['users://u1/profile'] });
    await stream.waitFor(
      (message) => message.method === 'notifications/subscriptions/acknowledged',
      'the acknowledgement',
    );
    await running.app.get(ProfileService).rename('u1');
    const updated = await stream.waitFor(
      (message) => message.method === 'notifications/resources/updated',
      'the update',
    );
    expect(updated.params).toMatchObject({ uri: 'users://u1/profile' });
    stream.close();
    await stream.ended;
  });

  it("Logger: a logger that reads the CLS context writes the call's id on each line", async () => {
    running.app.useLogger(running.app.get(CallIdLogger));
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(
      (chunk: string | Uint8Array) => (written.push(String(chunk)), true),
    );
    await client.callTool({ name: 'log_hello', arguments: {} });
    vi.restoreAllMocks();
    expect(written.find((line) => line.includes('hello'))).toMatch(/\[LoggingTools log_hello#\d+\]/);
  });
});
