import { Injectable, Module } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  McpArgs,
  McpCtx,
  McpModule,
  McpPrompt,
  McpResourceTemplate,
  McpSkill,
  type McpSkillFiles,
  McpTool,
  type McpToolContext,
} from 'nest-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { legacyPost, rawInitialize } from '../support/legacy-client.factory.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { modernMeta, startInProcessStdio, type InProcessStdio } from '../support/stdio.harness.js';

/**
 * Issue #24, item 11: no error repeats more than 8 KiB (`MAX_URI_LENGTH`) of what the client sent. A 1 MiB URI once
 * came back twice (message and `data.uri`) from `skills/get` and `resources/directory/read`, and once from
 * completion and `resources/read`; the same held for unknown tool and prompt names, methods, argument and answer
 * keys, a body's method or protocol version that disagrees with its header, and a stdio id in use. Each answer below
 * keeps its status and JSON-RPC code, is under 20 KiB, names the length it cut, and the server serves the next
 * request. (The endpoint reads bodies up to `maxBodyBytes`, 4 MiB, itself: 1 MiB reaches every handler.)
 */

const MiB = 1024 * 1024;
const BOUND = 20 * 1024;
const huge = (prefix: string) => `${prefix}${'a'.repeat(MiB)}`;

@Injectable()
class EchoHandlers {
  @McpSkill({ path: 'ops/rollout' })
  rollout(): McpSkillFiles {
    return { 'SKILL.md': '---\nname: rollout\ndescription: Roll out safely.\n---\nbody\n' };
  }

  @McpTool({ description: 'Answers at once' })
  ping() {
    return 'pong';
  }

  @McpTool({ description: 'Works until cancelled' })
  async hold(@McpCtx() ctx: McpToolContext) {
    await sleep(60_000, undefined, { signal: ctx.signal });
    return 'held';
  }

  @McpPrompt({ description: 'Greets', arguments: [{ name: 'who', complete: () => ['world'] }] })
  greet(@McpArgs('who') who: string) {
    return `hello ${who}`;
  }

  @McpResourceTemplate({ uriTemplate: 'notes://{id}', mimeType: 'text/plain', complete: { id: () => ['1'] } })
  note(@McpArgs('id') id: string) {
    return `note ${id}`;
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'echo-bounds', version: '1.0.0', skills: { directoryRead: true } })],
  providers: [EchoHandlers],
})
class EchoModule {}

/** The error of a one-message answer, after checking it is bounded and says how long the input was. */
function boundedError(
  response: { status: number; text: string },
  status: number,
  code: number,
): { message: string; data?: Record<string, unknown> } {
  expect(response.status, response.text.slice(0, 300)).toBe(status);
  expect(response.text.length, 'the answer is bounded').toBeLessThan(BOUND);
  expect(response.text).toMatch(/… \(\d+ characters\)/);
  const error = (
    JSON.parse(response.text) as { error: { code: number; message: string; data?: Record<string, unknown> } }
  ).error;
  expect(error.code).toBe(code);
  return error;
}

describe.each(ADAPTERS)('echoed input is bounded (%s)', (adapter) => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [EchoModule] });
  });
  afterAll(() => running?.close());

  /** The server still answers a plain call. */
  async function stillServes(): Promise<void> {
    const response = await mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'ping' } });
    expect(response.json).toMatchObject({ result: { content: [{ text: 'pong' }] } });
  }

  it.each<[string, string, Record<string, unknown>]>([
    ['skills/get', 'skills/get', { uri: huge('skill://') }],
    ['resources/directory/read', 'resources/directory/read', { uri: huge('skill://ops/') }],
    [
      'completion of an unknown template',
      'completion/complete',
      { ref: { type: 'ref/resource', uri: huge('notes://') }, argument: { name: 'id', value: '' } },
    ],
    [
      'completion of an unknown argument',
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: huge('x'), value: '' } },
    ],
  ])('%s answers -32602 with the input cut to 8 KiB', async (_label, method, params) => {
    const error = boundedError(await mcpPost(running.mcpUrl, { method, params }), 200, -32602);
    expect(error.message.length).toBeLessThan(9 * 1024);
    if (error.data?.uri !== undefined) expect(String(error.data.uri).length).toBeLessThan(9 * 1024);
    await stillServes();
  });

  it('a method and a protocol version in the body that disagree with their headers are cut in the -32020 message', async () => {
    const method = await mcpPost(running.mcpUrl, { method: huge('tools/'), headers: { 'mcp-method': 'tools/list' } });
    expect(boundedError(method, 400, -32020).message).toMatch(
      /^Header mismatch: Mcp-Method header value 'tools\/list' does not match body value 'tools\/a+… \(\d+ characters\)'$/,
    );
    const version = await mcpPost(running.mcpUrl, {
      method: 'tools/list',
      meta: requestMeta({ 'io.modelcontextprotocol/protocolVersion': huge('2026-') }),
    });
    expect(boundedError(version, 400, -32020).message).toMatch(
      /^Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body value '2026-a+… \(\d+ characters\)'$/,
    );
    await stillServes();
  });

  it('an inputResponses key that is not an object is cut in the -32602 message', async () => {
    const response = await mcpPost(running.mcpUrl, {
      method: 'tools/call',
      params: { name: 'ping', inputResponses: { [huge('k')]: 'not an object' } },
    });
    expect(boundedError(response, 200, -32602).message).toMatch(
      /^Invalid params: inputResponses\["ka+… \(\d+ characters\)"\] must be an object$/,
    );
    await stillServes();
  });

  it('2025-11-25 (no name or method headers): an unknown tool, prompt, prompt argument and method are cut', async () => {
    const { sessionId } = await rawInitialize(running.mcpUrl);
    const send = (method: string, params: Record<string, unknown>) =>
      legacyPost(running.mcpUrl, { id: 1, method, params }, { sessionId });
    const tool = boundedError(await send('tools/call', { name: huge('tool_'), arguments: {} }), 200, -32602);
    expect(tool.message).toMatch(/^Unknown tool: tool_a+… \(\d+ characters\)$/);
    expect(String(tool.data?.name)).toBe(tool.message.slice('Unknown tool: '.length));
    const prompt = boundedError(await send('prompts/get', { name: huge('prompt_') }), 200, -32602);
    expect(prompt.message).toMatch(/^Unknown prompt: prompt_a+… \(\d+ characters\)$/);
    expect(
      boundedError(await send('prompts/get', { name: 'greet', arguments: { [huge('arg')]: 1 } }), 200, -32602).message,
    ).toMatch(/^Invalid params: prompt argument "arga+… \(\d+ characters\)" must be a string$/);
    expect(boundedError(await send(huge('no/such/'), {}), 200, -32601).message).toMatch(
      /^Method not found: no\/such\/a+… \(\d+ characters\)$/,
    );
    // resources/read mirrors its URI in Mcp-Name on 2026-07-28, so a 1 MiB URI can only reach it on this wire, whose
    // "Resource not found" is -32002.
    const read = boundedError(await send('resources/read', { uri: huge('notes://') }), 200, -32002);
    expect(read).toMatchObject({
      message: 'Resource not found',
      data: { uri: expect.stringMatching(/^notes:\/\/a+… \(\d+ characters\)$/) },
    });
    const next = await send('tools/call', { name: 'ping', arguments: {} });
    expect(next.messages[0]).toMatchObject({ result: { content: [{ text: 'pong' }] } });
  });
});

describe('stdio: an id already in flight is cut in the -32600 message', () => {
  let stdio: InProcessStdio;
  beforeAll(async () => {
    stdio = await startInProcessStdio({ imports: [EchoModule] });
  });
  afterAll(() => stdio?.close());

  it('answers the duplicate with a bounded message and keeps serving', async () => {
    const id = huge('id-');
    stdio.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'hold', arguments: {}, _meta: modernMeta() },
    });
    stdio.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'ping', arguments: {}, _meta: modernMeta() },
    });
    const duplicate = await stdio.output.waitFor((message) => message.error?.code === -32600);
    // The id itself comes back (JSON-RPC requires it); the message does not repeat it a second time.
    expect(duplicate.error.message.length).toBeLessThan(9 * 1024);
    expect(duplicate.error.message).toMatch(
      /^Invalid Request: id "id-a+… \(\d+ characters\) belongs to a request still in flight$/,
    );
    stdio.send({
      jsonrpc: '2.0',
      id: 'next',
      method: 'tools/call',
      params: { name: 'ping', arguments: {}, _meta: modernMeta() },
    });
    expect((await stdio.output.response('next')).result).toMatchObject({ content: [{ text: 'pong' }] });
    stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  });
});
