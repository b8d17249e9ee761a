import type { Client } from '@modelcontextprotocol/client';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpTestingClient } from 'nest-mcp/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditedAppModule, AuditService } from '../../docs/examples/ecosystem/request-context.module.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { legacyRecordingFetch } from '../support/legacy-schema.validator.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { fetchAs } from '../support/principal.util.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { modernMeta, startInProcessStdio, type InProcessStdio } from '../support/stdio.harness.js';

/**
 * `nestjs-cls` on MCP calls (issue #30): with the `aroundHandler` option entering a CLS context, a service that reads
 * it (the principal, the request id, the trace id) works when a tool calls it — over HTTP on both wires (inheriting
 * the context the CLS middleware opened for the request), on stdio, in the testing kit, and in a task's rounds — and
 * so does a guard that reads it.
 */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe.each(ADAPTERS)('request context with nestjs-cls over HTTP (%s)', (adapter) => {
  let running: RunningApp;
  const clients: Client[] = [];

  beforeEach(async () => {
    running = await startApp(adapter, { imports: [AuditedAppModule] });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await running.close();
  });

  it('2026-07-28: the service reads the caller, a request id and the trace id; a guard reads the context too', async () => {
    const alice = await connectClient(running.mcpUrl, { fetch: fetchAs('alice') });
    clients.push(alice);
    const result = await alice.callTool({ name: 'delete_sku', arguments: { sku: 'apple' } });
    expect(result.structuredContent ?? JSON.parse((result.content as Array<{ text: string }>)[0].text)).toMatchObject({
      action: 'deleted apple',
      by: 'alice',
      requestId: expect.any(String),
    });

    const traced = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'delete_sku', arguments: { sku: 'pear' } },
      meta: requestMeta({ traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` }),
      headers: { 'x-user': 'alice' },
    });
    expect(traced.status).toBe(200);
    expect(running.app.get(AuditService).records.at(-1)).toMatchObject({ by: 'alice', traceId: TRACE_ID });

    const guest = await connectClient(running.mcpUrl, { fetch: fetchAs('guest') });
    clients.push(guest);
    expect(await guest.callTool({ name: 'delete_sku', arguments: { sku: 'apple' } })).toMatchObject({
      isError: true,
      content: [{ text: 'Forbidden resource' }],
    });
  });

  it('2025-11-25: the same context in a session', async () => {
    const { client } = await connectLegacyClient(running.mcpUrl, { recorder: legacyRecordingFetch(fetchAs('bob')) });
    clients.push(client);
    await client.callTool({ name: 'delete_sku', arguments: { sku: 'apple' } });
    expect(running.app.get(AuditService).records.at(-1)).toMatchObject({
      action: 'deleted apple',
      by: 'bob',
      requestId: expect.any(String),
    });
  });
});

describe('request context with nestjs-cls off HTTP', () => {
  let moduleRef: TestingModule | undefined;
  let stdio: InProcessStdio | undefined;
  afterEach(async () => {
    await stdio?.close();
    await moduleRef?.close();
    stdio = moduleRef = undefined;
  });

  it('stdio: a context per call, its id the JSON-RPC id', async () => {
    stdio = await startInProcessStdio({ imports: [AuditedAppModule] });
    stdio.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'delete_sku', arguments: { sku: 'apple' }, _meta: modernMeta() },
    });
    expect(await stdio.output.response(7)).toMatchObject({
      result: { structuredContent: { by: 'anonymous', requestId: '7' } },
    });
    expect(stdio.moduleRef.get(AuditService).records).toEqual([
      { action: 'deleted apple', by: 'anonymous', requestId: '7', traceId: undefined },
    ]);
  });

  it('the testing kit, and every round of a task (in the background, after the creating call)', async () => {
    moduleRef = await Test.createTestingModule({ imports: [AuditedAppModule] }).compile();
    const client = await McpTestingClient.create(moduleRef, {
      headers: { 'x-user': 'carol' },
      capabilities: { elicitation: { form: {} } },
    });
    await client.callTool('delete_sku', { sku: 'pear' });
    const audit = moduleRef.get(AuditService);
    expect(audit.records.at(-1)).toMatchObject({ by: 'carol', requestId: expect.any(String) });

    const task = await client.startTask('reindex');
    await task.result({ answers: [{ action: 'accept', content: { confirm: true } }] });
    const rounds = audit.records.filter((record) => record.action.startsWith('reindex'));
    expect(rounds.map((record) => record.action)).toEqual(['reindex asked', 'reindex asked', 'reindexed']);
    for (const record of rounds)
      expect(record).toMatchObject({
        by: 'carol',
        requestId: expect.stringMatching(new RegExp(`^task:${task.taskId}:`)),
      });
  });
});
