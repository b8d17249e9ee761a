import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpCompletionService } from './completion.service.js';
import { McpAccessPolicy } from './access.policy.js';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';

/** The access policy, built as the module builds it. */
function accessPolicy(options: McpModuleOptions = { name: 'srv', version: '1' }): McpAccessPolicy {
  return new McpAccessPolicy(options, new McpAuthenticator(new McpResolvedOptions(options)));
}

const CITIES = ['Paris', 'Perth', 'Porto', 'Prague'];
const noop = () => 'ok';

/** A registry with a prompt and a template that complete, and a static resource. */
function serviceWithCatalog(): McpCompletionService {
  const registry = new McpRegistry();
  registry.registerPrompt(
    {
      name: 'trip',
      arguments: [
        {
          name: 'city',
          complete: (value, context) =>
            CITIES.filter((city) => city.startsWith(value) && city !== context.arguments.exclude),
        },
        { name: 'notes' },
        { name: 'many', complete: () => Array.from({ length: 150 }, (_, i) => `v${i}`) },
        { name: 'counted', complete: () => ({ values: Array.from({ length: 120 }, (_, i) => `c${i}`), total: 500 }) },
        { name: 'broken', complete: () => [1, 2] as never },
        { name: 'refusing', complete: () => Promise.reject(McpError.invalidParams('Pick a country first')) },
      ],
    },
    noop,
  );
  registry.registerResourceTemplate(
    {
      uriTemplate: 'users://{id}/posts/{post}',
      complete: { id: () => ({ values: ['1', '2'], total: 2, hasMore: false }) },
    },
    noop,
  );
  registry.registerResource({ uri: 'docs://readme' }, noop);
  return new McpCompletionService(registry, accessPolicy());
}

const complete = (service: McpCompletionService, params: JsonObject) =>
  service.complete({ id: 1, method: 'completion/complete', params } as unknown as McpRequestScope);
const promptRef = { type: 'ref/prompt', name: 'trip' };
const values = async (service: McpCompletionService, params: JsonObject) =>
  ((await complete(service, params)).completion as { values: string[] }).values;

beforeAll(() => Logger.overrideLogger(false));

describe('McpCompletionService.complete', () => {
  const service = serviceWithCatalog();

  it("asks a prompt argument's provider with the partial value and the arguments already resolved", async () => {
    expect(await values(service, { ref: promptRef, argument: { name: 'city', value: 'P' } })).toEqual(CITIES);
    expect(
      await values(service, {
        ref: promptRef,
        argument: { name: 'city', value: 'P' },
        context: { arguments: { exclude: 'Paris' } },
      }),
    ).toEqual(['Perth', 'Porto', 'Prague']);
  });

  it('asks the provider of a template variable, and passes a full result through', async () => {
    const result = await complete(service, {
      ref: { type: 'ref/resource', uri: 'users://{id}/posts/{post}' },
      argument: { name: 'id', value: '' },
    });
    expect(result).toEqual({ completion: { values: ['1', '2'], total: 2, hasMore: false } });
  });

  it('answers no values where nothing completes: an argument or variable without provider, a static resource', async () => {
    const none = { completion: { values: [] } };
    expect(await complete(service, { ref: promptRef, argument: { name: 'notes', value: 'x' } })).toEqual(none);
    expect(
      await complete(service, {
        ref: { type: 'ref/resource', uri: 'users://{id}/posts/{post}' },
        argument: { name: 'post', value: '' },
      }),
    ).toEqual(none);
    expect(
      await complete(service, {
        ref: { type: 'ref/resource', uri: 'docs://readme' },
        argument: { name: 'x', value: '' },
      }),
    ).toEqual(none);
  });

  it('sends at most 100 values, with the total and hasMore', async () => {
    const many = (await complete(service, { ref: promptRef, argument: { name: 'many', value: '' } }))
      .completion as JsonObject;
    expect([(many.values as string[]).length, (many.values as string[])[99], many.total, many.hasMore]).toEqual([
      100,
      'v99',
      150,
      true,
    ]);
    const counted = (await complete(service, { ref: promptRef, argument: { name: 'counted', value: '' } }))
      .completion as JsonObject;
    expect([(counted.values as string[]).length, counted.total, counted.hasMore]).toEqual([100, 500, true]);
  });

  it.each([
    [
      'an unknown prompt',
      { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'city', value: '' } },
      'Unknown prompt: nope',
      { name: 'nope' },
    ],
    [
      'an argument the prompt does not have',
      { ref: promptRef, argument: { name: 'country', value: '' } },
      'Prompt "trip" has no argument "country"',
      undefined,
    ],
    [
      'an unknown resource',
      { ref: { type: 'ref/resource', uri: 'docs://gone' }, argument: { name: 'x', value: '' } },
      'Resource not found',
      { uri: 'docs://gone' },
    ],
    [
      'a variable the template does not have',
      { ref: { type: 'ref/resource', uri: 'users://{id}/posts/{post}' }, argument: { name: 'name', value: '' } },
      'Resource template "users://{id}/posts/{post}" has no variable "name"',
      undefined,
    ],
    [
      'another kind of ref',
      { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } },
      'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource"',
      undefined,
    ],
    [
      'a value that is not a string',
      { ref: promptRef, argument: { name: 'city', value: 1 } },
      'Invalid params: "argument.value" must be a string',
      undefined,
    ],
    [
      'no argument name',
      { ref: promptRef, argument: { value: '' } },
      'Invalid params: "name" must be a non-empty string',
      undefined,
    ],
    [
      'a ref that is not an object',
      { ref: 'trip', argument: { name: 'city', value: '' } },
      'Invalid params: "ref" must be an object',
      undefined,
    ],
  ])('refuses %s with -32602', async (_label, params, message, data) => {
    const refusal = complete(service, params as JsonObject);
    await expect(refusal).rejects.toBeInstanceOf(McpError);
    await expect(refusal).rejects.toMatchObject({ code: McpErrorCode.InvalidParams, message, data });
  });

  it("keeps a provider's McpError, and answers a provider that breaks its contract with a generic -32603", async () => {
    const refusing = complete(service, { ref: promptRef, argument: { name: 'refusing', value: '' } });
    await expect(refusing).rejects.toMatchObject({ code: McpErrorCode.InvalidParams, message: 'Pick a country first' });
    const broken = complete(service, { ref: promptRef, argument: { name: 'broken', value: '' } });
    await expect(broken).rejects.toMatchObject({ code: McpErrorCode.InternalError, message: 'Internal error' });
  });
});
