import { ForbiddenException, Logger } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpPromptContext } from '../context/mcp-prompt.context.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { McpMrtrService } from '../mrtr/mrtr.service.js';
import { RequestStateCodec } from '../mrtr/request-state.codec.js';
import { CallCancellation } from '../protocol/call-cancellation.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import { CursorCodec } from './cursor.codec.js';
import { McpHandlerInvoker } from './handler.invoker.js';
import { McpListsService } from './lists.service.js';
import { McpPromptsService } from './prompts.service.js';
import { McpAccessPolicy } from './access.policy.js';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';

/** The access policy, built as the module builds it. */
function accessPolicy(options: McpModuleOptions = { name: 'srv', version: '1' }): McpAccessPolicy {
  return new McpAccessPolicy(options, new McpAuthenticator(new McpResolvedOptions(options)));
}

const registry = new McpRegistry();
const options = new McpResolvedOptions({
  name: 'srv',
  version: '1',
  pageSize: 2,
  requestState: { keys: [Buffer.alloc(32, 1).toString('base64')] },
});
const codec = new RequestStateCodec(options, { path: '/mcp' }, new ApplicationConfig());
const prompts = new McpPromptsService(
  registry,
  new McpHandlerInvoker(new McpMrtrService(codec, options)),
  accessPolicy(),
);
const lists = new McpListsService(registry, options);

const seen: { args: unknown; context: unknown }[] = [];
registry.registerPrompt(
  {
    name: 'trip',
    description: 'Plans a trip',
    arguments: [{ name: 'city', required: true }, { name: 'days', required: true }, { name: 'style' }],
  },
  (args, context) => (seen.push({ args, context }), `Plan ${args.days} days in ${args.city}`),
);
registry.registerPrompt({ name: 'empty' }, () => 42);
registry.registerPrompt({ name: 'guarded' }, () => {
  throw new ForbiddenException('Only members may plan trips');
});

const get = (params: JsonObject) =>
  prompts.get({
    id: 1,
    method: 'prompts/get',
    params,
    cancellation: new CallCancellation(),
    channel: new ResponseChannel(),
  } as unknown as McpRequestScope);

beforeAll(() => Logger.overrideLogger(false));

describe('McpPromptsService.get', () => {
  it('runs the prompt with its string arguments and a prompt context, and adds the declared description', async () => {
    const result = await get({ name: 'trip', arguments: { city: 'Porto', days: '3' } });
    expect(result).toEqual({
      description: 'Plans a trip',
      messages: [{ role: 'user', content: { type: 'text', text: 'Plan 3 days in Porto' } }],
    });
    expect(seen.at(-1)?.args).toEqual({ city: 'Porto', days: '3' });
    expect(seen.at(-1)?.context).toBeInstanceOf(McpPromptContext);
  });

  it('refuses an unknown prompt with -32602 naming it', async () => {
    await expect(get({ name: 'nope' })).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Unknown prompt: nope',
      data: { name: 'nope' },
    });
  });

  it('refuses arguments that are not strings, and lists every missing required argument, before the prompt runs', async () => {
    const runs = seen.length;
    await expect(get({ name: 'trip', arguments: { city: 'Porto', days: 3 } })).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Invalid params: prompt argument "days" must be a string',
    });
    await expect(get({ name: 'trip', arguments: { style: 'slow' } })).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Missing required arguments for prompt "trip": city, days',
      data: { missing: ['city', 'days'] },
    });
    expect(seen.length).toBe(runs);
  });

  // The check must look at own properties: `args.constructor` exists on every object.
  it('refuses a missing required argument even when its name is also an Object.prototype member', async () => {
    registry.registerPrompt({ name: 'explain', arguments: [{ name: 'constructor', required: true }] }, () => 'never');
    try {
      await expect(get({ name: 'explain', arguments: {} })).rejects.toMatchObject({
        data: { missing: ['constructor'] },
      });
    } finally {
      registry.removePrompt('explain');
    }
  });

  it("answers a guard's refusal with -32602 and its message, and a prompt that returns no messages with a generic -32603", async () => {
    await expect(get({ name: 'guarded' })).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Only members may plan trips',
    });
    await expect(get({ name: 'empty' })).rejects.toMatchObject({
      code: McpErrorCode.InternalError,
      message: 'Internal error',
    });
  });
});

describe('prompts/list (McpListsService)', () => {
  it('pages the prompts by name with the promptsList cache hints; a tools cursor is refused', () => {
    const scope = (params: JsonObject) => ({ params }) as unknown as McpRequestScope;
    const first = lists.prompts.page(scope({}));
    expect(first).toEqual({
      prompts: [{ name: 'empty' }, { name: 'guarded' }],
      nextCursor: CursorCodec.encode('prompts', 2),
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(
      (lists.prompts.page(scope({ cursor: first.nextCursor })).prompts as JsonObject[]).map((prompt) => prompt.name),
    ).toEqual(['trip']);
    expect(() => lists.prompts.page(scope({ cursor: CursorCodec.encode('tools', 2) }))).toThrow(
      'Invalid params: invalid cursor',
    );
  });
});
