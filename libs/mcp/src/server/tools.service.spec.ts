import { Logger } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolvedOptions } from '../../../../test/support/resolved-options.factory.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpToolContext } from '../context/mcp-tool.context.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { McpMrtrService } from '../mrtr/mrtr.service.js';
import { RequestStateCodec } from '../mrtr/request-state.codec.js';
import { CallCancellation } from '../protocol/call-cancellation.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import { CursorCodec } from './cursor.codec.js';
import { McpHandlerInvoker } from './handler.invoker.js';
import { McpListsService } from './lists.service.js';
import { McpToolError } from './mcp-tool.error.js';
import { McpToolsService } from './tools.service.js';
import { McpAccessPolicy } from './access.policy.js';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';

/** The access policy, built as the module builds it. */
function accessPolicy(options: McpModuleOptions = { name: 'srv', version: '1' }): McpAccessPolicy {
  return new McpAccessPolicy(options, new McpAuthenticator(new McpResolvedOptions(options)));
}

const KEY = Buffer.alloc(32, 7).toString('base64');
const ADD_INPUT = {
  type: 'object',
  properties: { a: { type: 'integer' }, b: { type: 'integer' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

/** The service over a fresh registry, built as the module builds it. */
function toolsWith(options: Partial<McpModuleOptions> = {}): { registry: McpRegistry; tools: McpToolsService } {
  const resolved = new McpResolvedOptions({ name: 'srv', version: '1', requestState: { keys: [KEY] }, ...options });
  const registry = new McpRegistry();
  const mrtr = new McpMrtrService(new RequestStateCodec(resolved, { path: '/mcp' }, new ApplicationConfig()), resolved);
  return {
    registry,
    tools: new McpToolsService(
      registry,
      resolved,
      new McpHandlerInvoker(mrtr),
      accessPolicy({ name: 'srv', version: '1', ...options }),
    ),
  };
}

const scopeOf = (method: string, params: JsonObject): McpRequestScope =>
  ({
    id: 1,
    method,
    params,
    meta: { raw: {} },
    cancellation: new CallCancellation(),
    channel: new ResponseChannel(),
  }) as unknown as McpRequestScope;
const call = (tools: McpToolsService, params: JsonObject) => tools.call(scopeOf('tools/call', params));
const textOf = (result: JsonObject) => (result.content as { text: string }[])[0].text;

beforeAll(() => Logger.overrideLogger(false));

describe('McpToolsService.call: which tool, which arguments', () => {
  it('refuses an unknown tool, a missing name and arguments that are not an object with -32602', async () => {
    const { tools } = toolsWith();
    const unknown = call(tools, { name: 'nope' });
    await expect(unknown).rejects.toBeInstanceOf(McpError);
    await expect(unknown).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Unknown tool: nope',
      data: { name: 'nope' },
      httpStatus: 200,
    });
    await expect(call(tools, {})).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Invalid params: "name" must be a non-empty string',
    });
    const { registry, tools: withTool } = toolsWith();
    registry.registerTool({ name: 'ping' }, () => 'pong');
    await expect(call(withTool, { name: 'ping', arguments: [1] })).rejects.toMatchObject({
      message: 'Invalid params: "arguments" must be an object',
    });
  });

  it('runs the handler with the validated arguments and a tool context', async () => {
    const { registry, tools } = toolsWith();
    const seen: unknown[] = [];
    registry.registerTool<{ a: number; b: number }>(
      { name: 'add', input: ADD_INPUT },
      ({ a, b }, context) => (seen.push(context), String(a + b)),
    );
    expect(await call(tools, { name: 'add', arguments: { a: 2, b: 3 } })).toEqual({
      content: [{ type: 'text', text: '5' }],
    });
    expect(seen[0]).toBeInstanceOf(McpToolContext);
    expect((seen[0] as McpToolContext).handlerName()).toBe('add');
  });

  it('answers invalid arguments with an isError result the model can act on, without running the handler (default)', async () => {
    const { registry, tools } = toolsWith();
    let runs = 0;
    registry.registerTool({ name: 'add', input: ADD_INPUT }, () => ++runs);
    const result = await call(tools, { name: 'add', arguments: { a: 'two', b: 3 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Invalid arguments for tool "add": /);
    expect(runs).toBe(0);
  });

  it("answers invalid arguments with -32602 when invalidToolArguments is 'protocol'", async () => {
    const { registry, tools } = toolsWith({ invalidToolArguments: 'protocol' });
    registry.registerTool({ name: 'add', input: ADD_INPUT }, () => 'never');
    await expect(call(tools, { name: 'add', arguments: { a: 1 } })).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: expect.stringMatching(/^Invalid arguments for tool "add": /),
    });
  });

  it('treats a tool without input schema as taking no arguments: absent, null or {} run it, any key is refused', async () => {
    const { registry, tools } = toolsWith();
    registry.registerTool({ name: 'ping' }, () => 'pong');
    for (const args of [undefined, null, {}])
      expect(textOf(await call(tools, { name: 'ping', arguments: args }))).toBe('pong');
    const refused = await call(tools, { name: 'ping', arguments: { verbose: true } });
    expect([refused.isError, textOf(refused)]).toEqual([
      true,
      'Invalid arguments for tool "ping": the tool takes no arguments, got verbose',
    ]);
  });
});

describe('McpToolsService.call: what the handler did', () => {
  it('turns a failure meant for the model into an isError result, hides any other, and keeps an McpError a protocol error', async () => {
    const { registry, tools } = toolsWith();
    registry.registerTool({ name: 'book' }, () => {
      throw new McpToolError('No flight that day');
    });
    registry.registerTool({ name: 'crash' }, () => {
      throw new Error('db password=hunter2');
    });
    registry.registerTool({ name: 'strict' }, () => {
      throw McpError.invalidParams('Unknown region', { region: 'mars' });
    });
    expect(await call(tools, { name: 'book' })).toEqual({
      content: [{ type: 'text', text: 'No flight that day' }],
      isError: true,
    });
    expect(await call(tools, { name: 'crash' })).toEqual({
      content: [{ type: 'text', text: 'Tool "crash" failed with an internal error' }],
      isError: true,
    });
    await expect(call(tools, { name: 'strict' })).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      data: { region: 'mars' },
    });
  });

  it('checks a result against the output schema: structuredContent plus text when it holds, -32603 when it breaks', async () => {
    const { registry, tools } = toolsWith();
    const output = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] };
    registry.registerTool({ name: 'weather', output }, () => ({ celsius: 21 }));
    registry.registerTool({ name: 'liar', output }, () => ({ fahrenheit: 70 }));
    expect(await call(tools, { name: 'weather' })).toEqual({
      content: [{ type: 'text', text: '{"celsius":21}' }],
      structuredContent: { celsius: 21 },
    });
    await expect(call(tools, { name: 'liar' })).rejects.toMatchObject({
      code: McpErrorCode.InternalError,
      message: 'Tool "liar" produced an invalid result',
    });
  });

  it('checks the plain JSON of a returned class instance, and does not check an isError result', async () => {
    class Reading {
      constructor(readonly celsius: number) {}
      toJSON() {
        return { celsius: this.celsius };
      }
    }
    const { registry, tools } = toolsWith();
    const output = {
      type: 'object',
      properties: { celsius: { type: 'number' } },
      required: ['celsius'],
      additionalProperties: false,
    };
    registry.registerTool({ name: 'dto', output }, () => new Reading(3));
    registry.registerTool({ name: 'failed', output }, () => ({
      content: [{ type: 'text', text: 'sensor offline' }],
      isError: true,
    }));
    expect((await call(tools, { name: 'dto' })).structuredContent).toEqual({ celsius: 3 });
    expect(await call(tools, { name: 'failed' })).toEqual({
      content: [{ type: 'text', text: 'sensor offline' }],
      isError: true,
    });
  });
});

describe('tools/list (McpListsService)', () => {
  it('pages the tools by pageSize with the cache hints of toolsList, and refuses the cursor of another list', () => {
    const registry = new McpRegistry();
    const lists = new McpListsService(
      registry,
      resolvedOptions({ pageSize: 1, cacheHints: { toolsList: { ttlMs: 1000, cacheScope: 'public' } } }),
    );
    for (const name of ['b', 'a']) registry.registerTool({ name }, () => name);
    const first = lists.tools.page(scopeOf('tools/list', {}));
    expect(first).toEqual({
      tools: [expect.objectContaining({ name: 'a' })],
      nextCursor: CursorCodec.encode('tools', 1),
      ttlMs: 1000,
      cacheScope: 'public',
    });
    expect((lists.tools.page(scopeOf('tools/list', { cursor: first.nextCursor })).tools as JsonObject[])[0].name).toBe(
      'b',
    );
    expect(() => lists.tools.page(scopeOf('tools/list', { cursor: CursorCodec.encode('prompts', 1) }))).toThrow(
      'Invalid params: invalid cursor',
    );
  });
});
