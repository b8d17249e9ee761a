import { Logger } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpResourceContext } from '../context/mcp-resource.context.js';
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
import { McpResourcesService } from './resources.service.js';
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
  pageSize: 1,
  cacheHints: { resourcesRead: { ttlMs: 30_000, cacheScope: 'public' } },
  requestState: { keys: [Buffer.alloc(32, 2).toString('base64')] },
});
const mrtr = new McpMrtrService(new RequestStateCodec(options, { path: '/mcp' }, new ApplicationConfig()), options);
const resources = new McpResourcesService(registry, options, new McpHandlerInvoker(mrtr), accessPolicy());
const lists = new McpListsService(registry, options);

const contexts: unknown[] = [];
registry.registerResource(
  { uri: 'files://config/app.json', mimeType: 'application/json' },
  (_input, context) => (contexts.push(context), '{"static":true}'),
);
registry.registerResourceTemplate(
  { uriTemplate: 'files://{+path}', mimeType: 'text/plain' },
  (variables) => `any ${JSON.stringify(variables)}`,
);
registry.registerResourceTemplate(
  { uriTemplate: 'files://config/{name}' },
  (variables) => `config ${JSON.stringify(variables)}`,
);
registry.registerResourceTemplate({ uriTemplate: 'users://{id}' }, ({ id }) => {
  if (id === '0') throw McpError.resourceNotFound('users://0');
  return 42;
});

const read = (uri: unknown) =>
  resources.read({
    id: 1,
    method: 'resources/read',
    params: { uri },
    cancellation: new CallCancellation(),
    channel: new ResponseChannel(),
  } as unknown as McpRequestScope);
const notFound = (uri: string) => ({ code: McpErrorCode.InvalidParams, message: 'Resource not found', data: { uri } });

beforeAll(() => Logger.overrideLogger(false));

describe('McpResourcesService.read', () => {
  it('reads a static resource with its mimeType and the resourcesRead cache hints, and a resource context', async () => {
    expect(await read('files://config/app.json')).toEqual({
      ttlMs: 30_000,
      cacheScope: 'public',
      contents: [{ uri: 'files://config/app.json', mimeType: 'application/json', text: '{"static":true}' }],
    });
    expect(contexts.at(-1)).toBeInstanceOf(McpResourceContext);
    expect((contexts.at(-1) as McpResourceContext).handlerName()).toBe('files://config/app.json');
  });

  it('otherwise reads through the most specific matching template, with its variables as input', async () => {
    expect((await read('files://config/db.json')).contents).toEqual([
      { uri: 'files://config/db.json', text: 'config {"name":"db.json"}' },
    ]);
    expect((await read('files://src/main.ts')).contents).toEqual([
      { uri: 'files://src/main.ts', mimeType: 'text/plain', text: 'any {"path":"src/main.ts"}' },
    ]);
  });

  it('answers an unknown URI, and one longer than 8,192 characters, with -32602 "Resource not found" and the URI (cut to 8,192)', async () => {
    await expect(read('docs://nothing')).rejects.toMatchObject(notFound('docs://nothing'));
    const long = `files://${'a'.repeat(8192)}`;
    await expect(read(long)).rejects.toMatchObject({
      code: -32602,
      message: 'Resource not found',
      data: { uri: `${long.slice(0, 8192)}… (8200 characters)` },
    });
  });

  it('refuses a missing URI, and one that is not absolute printable ASCII, with -32602 before any handler runs', async () => {
    await expect(read(undefined)).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Invalid params: "uri" must be a non-empty string',
    });
    const ascii = 'Invalid params: uri must be an absolute URI of printable ASCII characters';
    for (const uri of ['files://café', 'files://a b', 'relative/path'])
      await expect(read(uri)).rejects.toMatchObject({ code: McpErrorCode.InvalidParams, message: ascii });
  });

  it("keeps a handler's McpError, and answers a handler that returns no contents with a generic -32603", async () => {
    await expect(read('users://0')).rejects.toMatchObject(notFound('users://0'));
    await expect(read('users://1')).rejects.toMatchObject({
      code: McpErrorCode.InternalError,
      message: 'Internal error',
    });
  });
});

describe('resources/list and resources/templates/list (McpListsService)', () => {
  const scope = (params: JsonObject) => ({ params }) as unknown as McpRequestScope;

  it('pages resources by URI and templates most specific first, each with its own cursors', () => {
    const templates = lists.resourceTemplates.page(scope({}));
    expect(templates).toMatchObject({
      resourceTemplates: [{ uriTemplate: 'files://config/{name}' }],
      nextCursor: CursorCodec.encode('templates', 1),
    });
    expect(lists.resources.page(scope({}))).toEqual({
      resources: [{ uri: 'files://config/app.json', name: 'files://config/app.json', mimeType: 'application/json' }],
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(() => lists.resources.page(scope({ cursor: templates.nextCursor }))).toThrow(
      'Invalid params: invalid cursor',
    );
    expect(
      (lists.resourceTemplates.page(scope({ cursor: templates.nextCursor })).resourceTemplates as JsonObject[])[0]
        .uriTemplate,
    ).toBe('users://{id}');
  });
});
