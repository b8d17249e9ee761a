import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { CatalogModule } from '../fixtures/catalog.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import {
  assertAllValid,
  compilePublishedSchema,
  recordingFetch,
  type RecordingFetch,
} from '../support/wire-schema.validator.js';

/**
 * The catalog fixture driven through the official client on the 2026-07-28 wire. Everything the server sends is
 * recorded from the raw HTTP responses and checked against the official schema at the end of each adapter's run,
 * since the client may strip or default fields (`resultType`, cache hints) before a test sees them.
 */

const SERVER_INFO = { name: 'catalog', version: '1.2.3' };
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const CATALOG_TOOLS = [
  'add',
  'admin_reset',
  'bulk_01',
  'bulk_02',
  'bulk_03',
  'crash',
  'echo',
  'outOfStock',
  'piped',
  'placeOrder',
  'shout',
];
const CACHEABLE_METHODS = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

interface ToolsPage {
  tools: Array<{ name: string }>;
  nextCursor?: string;
}

interface TextBlock {
  type: string;
  text: string;
}

/** The text of a one-block text result. */
function onlyText(result: { content?: unknown }): string {
  const content = result.content as TextBlock[];
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  return content[0].text;
}

/** Adds `x-role: admin` to every request, on top of the recording fetch. */
function withAdminRole(recorder: RecordingFetch): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('x-role', 'admin');
    return recorder.fetch(input, { ...init, headers });
  }) as typeof fetch;
}

describe.each(ADAPTERS)('MCP features through the official client (%s)', (adapter) => {
  let running: RunningApp;
  let recorder: RecordingFetch;
  let client: Client;
  let admin: Client;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [CatalogModule] });
    recorder = recordingFetch();
    client = await connectClient(running.mcpUrl, { fetch: recorder.fetch });
    admin = await connectClient(running.mcpUrl, { fetch: withAdminRole(recorder) });
  });
  afterAll(async () => {
    await admin?.close();
    await client?.close();
    await running?.close();
  });

  /** Walks tools/list page by page: the first page by a plain request (no cursor), the rest by `listTools({ cursor })`. */
  async function walkToolPages(): Promise<ToolsPage[]> {
    const pages: ToolsPage[] = [(await client.request({ method: 'tools/list', params: {} })) as ToolsPage];
    while (pages.at(-1)!.nextCursor !== undefined) {
      expect(pages.length).toBeLessThan(10);
      pages.push((await client.listTools({ cursor: pages.at(-1)!.nextCursor! })) as ToolsPage);
    }
    return pages;
  }

  describe('server/discover', () => {
    it('advertises the version, capabilities, instructions, cache hints and serverInfo', async () => {
      const result = await client.discover();
      expect(result.supportedVersions).toContain('2026-07-28');
      expect(result.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {}, completions: {} });
      expect(result.instructions).toBe('Use the catalog tools.');
      expect(Number.isInteger(result.ttlMs)).toBe(true);
      expect(result.ttlMs).toBeGreaterThanOrEqual(0);
      expect(['public', 'private']).toContain(result.cacheScope);
      expect(result._meta?.[SERVER_INFO_KEY]).toEqual(SERVER_INFO);
      expect(client.getServerVersion()).toEqual(SERVER_INFO);
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    });
  });

  describe('tools', () => {
    it('pages tools/list by 4 in sorted, deterministic order and ends without nextCursor', async () => {
      const first = await walkToolPages();
      const second = await walkToolPages();
      expect(second).toEqual(first);

      expect(first.length).toBe(Math.ceil(CATALOG_TOOLS.length / 4));
      for (const page of first.slice(0, -1)) {
        expect(page.tools).toHaveLength(4);
        expect(typeof page.nextCursor).toBe('string');
        expect(page.nextCursor).not.toBe('');
      }
      const last = first.at(-1)!;
      expect(last.tools.length).toBeGreaterThan(0);
      expect(last.tools.length).toBeLessThanOrEqual(4);
      expect(last).not.toHaveProperty('nextCursor');

      const names = first.flatMap((page) => page.tools.map((tool) => tool.name));
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(CATALOG_TOOLS);

      const aggregated = await client.listTools();
      expect(aggregated.tools.map((tool) => tool.name)).toEqual(names);
    });

    it('publishes DTO-derived input and output schemas', async () => {
      const page = (await client.request({ method: 'tools/list', params: {} })) as {
        tools: Array<{ name: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> }>;
      };
      const add = page.tools.find((tool) => tool.name === 'add')!;
      expect(add.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      });
      expect(add.inputSchema.required).toEqual(expect.arrayContaining(['a', 'b']));
      expect(add.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'integer' } } });
    });

    // spec 2026-07-28: server/tools, "Tool" and "Tool Names"
    it('publishes a compilable inputSchema with root type "object" and a well-formed name for every tool', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(CATALOG_TOOLS);
      for (const tool of tools) {
        expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(() => compilePublishedSchema(tool.inputSchema, `${tool.name} inputSchema`), tool.name).not.toThrow();
        if (tool.outputSchema)
          expect(() => compilePublishedSchema(tool.outputSchema, `${tool.name} outputSchema`)).not.toThrow();
      }
    });

    it('calls a DTO tool and returns structuredContent, valid against its outputSchema, with an equal JSON text copy', async () => {
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ sum: 42 });
      expect(JSON.parse(onlyText(result))).toEqual(result.structuredContent);

      const { tools } = await client.listTools();
      const outputSchema = tools.find((tool) => tool.name === 'add')!.outputSchema;
      expect(outputSchema).toBeDefined();
      compilePublishedSchema(outputSchema, 'add outputSchema')(result.structuredContent);
    });

    it('answers a DTO validation failure with isError naming the field', async () => {
      const result = await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } });
      expect(result.isError).toBe(true);
      const text = onlyText(result);
      expect(text).toMatch(/(^|[\s"'/:])a\b/);
      expect(text).toMatch(/integer/);
      expect(text).not.toMatch(/\bb\b.*integer/);
    });

    it('answers a nested DTO validation failure with isError naming the nested field', async () => {
      const result = await client.callTool({
        name: 'placeOrder',
        arguments: { customer: 'Ada', lines: [{ sku: 'apple', quantity: 0 }] },
      });
      expect(result.isError).toBe(true);
      const text = onlyText(result);
      expect(text).toContain('quantity');
      expect(text).toMatch(/lines\W{1,3}0\W{1,3}quantity/);
    });

    it('runs a nested DTO tool that returns text and a resource link', async () => {
      const result = await client.callTool({
        name: 'placeOrder',
        arguments: {
          customer: 'Ada',
          lines: [
            { sku: 'apple', quantity: 2 },
            { sku: 'cherry', quantity: 3 },
          ],
          shipping: 'express',
        },
      });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([
        { type: 'text', text: 'Order for Ada: 5 units' },
        expect.objectContaining({ type: 'resource_link', uri: 'catalog://skus', name: 'skus' }),
      ]);
    });

    it('answers a raw JSON Schema validation failure with isError naming the property', async () => {
      const result = await client.callTool({ name: 'echo', arguments: {} });
      expect(result.isError).toBe(true);
      expect(onlyText(result)).toContain('text');
    });

    it('calls a raw JSON Schema tool with valid arguments', async () => {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(result.isError).toBeFalsy();
      expect(onlyText(result)).toMatch(/: hi$/);
    });

    it('turns McpToolError into isError with its message', async () => {
      const result = await client.callTool({ name: 'outOfStock', arguments: {} });
      expect(result.isError).toBe(true);
      expect(onlyText(result)).toBe('That item is out of stock; try another one.');
    });

    it('turns an unexpected Error into a generic isError text that leaks nothing', async () => {
      const result = await client.callTool({ name: 'crash', arguments: {} });
      expect(result.isError).toBe(true);
      const text = onlyText(result);
      expect(text.length).toBeGreaterThan(0);
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('database password');
      expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    });

    it('applies guards: denied without the role, allowed with x-role: admin', async () => {
      const denied = await client.callTool({ name: 'admin_reset', arguments: {} });
      expect(denied.isError).toBe(true);
      expect(onlyText(denied)).toBe('Forbidden resource');

      const allowed = await admin.callTool({ name: 'admin_reset', arguments: {} });
      expect(allowed.isError).toBeFalsy();
      expect(onlyText(allowed)).toBe('reset done');
    });

    it('applies interceptors', async () => {
      const result = await client.callTool({ name: 'shout', arguments: { text: 'hello' } });
      expect(result.isError).toBeFalsy();
      expect(onlyText(result)).toBe('[HELLO]');
    });

    it('answers an unknown tool with a -32602 protocol error', async () => {
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    });
  });

  describe('prompts', () => {
    it('lists the prompt with its arguments', async () => {
      const { prompts } = await client.listPrompts();
      const prompt = prompts.find((candidate) => candidate.name === 'describeFruit');
      expect(prompt).toBeDefined();
      expect(prompt!.description).toBe('Describes a fruit');
      expect(prompt!.arguments).toEqual([
        expect.objectContaining({ name: 'fruit', description: 'Which fruit', required: true }),
        expect.objectContaining({ name: 'tone', description: 'Tone of voice' }),
      ]);
      expect(prompt!.arguments![1].required).toBeFalsy();
    });

    it('gets the prompt with its arguments filled in', async () => {
      const result = await client.getPrompt({ name: 'describeFruit', arguments: { fruit: 'apple', tone: 'cheerful' } });
      expect(result.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Describe apple in a cheerful tone.' } },
      ]);
      const withDefaults = await client.getPrompt({ name: 'describeFruit', arguments: { fruit: 'cherry' } });
      expect(withDefaults.messages[0].content).toEqual({ type: 'text', text: 'Describe cherry in a neutral tone.' });
    });

    it('answers a missing required argument with -32602', async () => {
      await expect(client.getPrompt({ name: 'describeFruit', arguments: { tone: 'dry' } })).rejects.toMatchObject({
        code: -32602,
      });
    });

    it('answers an unknown prompt with -32602', async () => {
      await expect(client.getPrompt({ name: 'noSuchPrompt', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    });
  });

  describe('resources', () => {
    it('lists the static resources', async () => {
      const { resources } = await client.listResources();
      const byUri = new Map(resources.map((resource) => [resource.uri, resource]));
      expect([...byUri.keys()].sort()).toEqual(['catalog://logo', 'catalog://skus']);
      expect(byUri.get('catalog://skus')).toMatchObject({ mimeType: 'application/json', description: 'All SKUs' });
      expect(byUri.get('catalog://logo')).toMatchObject({ mimeType: 'image/png' });
    });

    it('reads a text resource', async () => {
      const result = await client.readResource({ uri: 'catalog://skus' });
      expect(result.contents).toHaveLength(1);
      const [contents] = result.contents as Array<{ uri: string; mimeType?: string; text: string }>;
      expect(contents).toMatchObject({ uri: 'catalog://skus', mimeType: 'application/json' });
      expect(JSON.parse(contents.text)).toEqual(['apple', 'apricot', 'banana', 'blueberry', 'cherry']);
    });

    it('reads a binary resource as a base64 blob', async () => {
      const result = await client.readResource({ uri: 'catalog://logo' });
      expect(result.contents).toHaveLength(1);
      const [contents] = result.contents as Array<{ uri: string; mimeType?: string; blob: string; text?: string }>;
      expect(contents).toMatchObject({ uri: 'catalog://logo', mimeType: 'image/png' });
      expect(contents.text).toBeUndefined();
      expect(contents.blob).toBe(Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'));
      expect([...Buffer.from(contents.blob, 'base64')]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    });

    it('lists the resource template', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([
        expect.objectContaining({ uriTemplate: 'catalog://items/{sku}', mimeType: 'application/json' }),
      ]);
    });

    it('reads a URI that matches the template', async () => {
      const result = await client.readResource({ uri: 'catalog://items/apple' });
      expect(result.contents).toEqual([
        expect.objectContaining({
          uri: 'catalog://items/apple',
          mimeType: 'application/json',
          text: JSON.stringify({ sku: 'apple' }),
        }),
      ]);
    });

    it('answers an unknown resource with -32602 and data.uri', async () => {
      await expect(client.readResource({ uri: 'catalog://nothing' })).rejects.toMatchObject({
        code: -32602,
        data: { uri: 'catalog://nothing' },
      });
    });

    // spec 2026-07-28: server/resources, "Error Handling"
    it('answers a template URI whose item does not exist with -32602, not empty contents', async () => {
      await expect(client.readResource({ uri: 'catalog://items/durian' })).rejects.toMatchObject({ code: -32602 });
    });
  });

  describe('completion', () => {
    it('completes a prompt argument', async () => {
      const result = await client.complete({
        ref: { type: 'ref/prompt', name: 'describeFruit' },
        argument: { name: 'fruit', value: 'ap' },
      });
      expect(result.completion.values).toEqual(['apple', 'apricot']);
      const none = await client.complete({
        ref: { type: 'ref/prompt', name: 'describeFruit' },
        argument: { name: 'fruit', value: 'zz' },
      });
      expect(none.completion.values).toEqual([]);
    });

    it('completes a resource template variable', async () => {
      const result = await client.complete({
        ref: { type: 'ref/resource', uri: 'catalog://items/{sku}' },
        argument: { name: 'sku', value: 'b' },
      });
      expect(result.completion.values).toEqual(['banana']);
    });

    it('answers a completion for an unknown prompt with -32602', async () => {
      await expect(
        client.complete({ ref: { type: 'ref/prompt', name: 'noSuchPrompt' }, argument: { name: 'fruit', value: 'a' } }),
      ).rejects.toMatchObject({ code: -32602 });
    });
  });

  // The checks below read the raw wire recorded during the tests above (vitest runs them in order).
  describe('raw wire', () => {
    it('puts resultType "complete" and serverInfo on every result', async () => {
      const results = (await recorder.settled()).filter(
        (entry) => entry.message && 'result' in (entry.message as object),
      );
      expect(results.length).toBeGreaterThan(20);
      const methods = new Set(results.map((entry) => entry.requestMethod));
      for (const method of [
        'server/discover',
        'tools/list',
        'tools/call',
        'prompts/list',
        'prompts/get',
        'resources/read',
        'completion/complete',
      ]) {
        expect(methods).toContain(method);
      }
      for (const entry of results) {
        const result = (entry.message as { result: Record<string, unknown> }).result;
        expect(result.resultType, entry.requestMethod).toBe('complete');
        expect((result._meta as Record<string, unknown> | undefined)?.[SERVER_INFO_KEY], entry.requestMethod).toEqual(
          SERVER_INFO,
        );
      }
    });

    it('puts ttlMs and cacheScope on discover, every list page and resources/read, with one scope per list', async () => {
      const cacheable = (await recorder.settled()).filter(
        (entry) =>
          CACHEABLE_METHODS.has(entry.requestMethod ?? '') && entry.message && 'result' in (entry.message as object),
      );
      expect(new Set(cacheable.map((entry) => entry.requestMethod))).toEqual(CACHEABLE_METHODS);
      const scopes = new Map<string, Set<unknown>>();
      for (const entry of cacheable) {
        const result = (entry.message as { result: { ttlMs?: unknown; cacheScope?: unknown } }).result;
        expect(Number.isInteger(result.ttlMs), `${entry.requestMethod} ttlMs`).toBe(true);
        expect(result.ttlMs as number).toBeGreaterThanOrEqual(0);
        expect(['public', 'private'], `${entry.requestMethod} cacheScope`).toContain(result.cacheScope);
        const seen = scopes.get(entry.requestMethod!) ?? new Set();
        seen.add(result.cacheScope);
        scopes.set(entry.requestMethod!, seen);
      }
      for (const [method, seen] of scopes) expect(seen.size, method).toBe(1);
    });

    it('answered every request with application/json (nothing was emitted before a result)', async () => {
      const recorded = await recorder.settled();
      for (const entry of recorded) expect(entry.contentType, entry.requestMethod).toMatch(/^application\/json\b/);
    });

    it('sent only messages that match the official 2026-07-28 schema', async () => {
      const checked = await assertAllValid(recorder);
      expect(checked).toBeGreaterThan(30);
    });
  });
});
