import type { Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpDefinitionError, McpRegistry, McpToolContext } from 'nest-mcp';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import { emptyModule, fullListenModule, RecordingEventBus } from '../fixtures/listen.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, type RawResponse } from '../support/raw-request.util.js';
import { listen, type OpenStream } from '../support/sse-stream.reader.js';
import { until } from '../support/wait.util.js';
import { assertAllValid, assertValidServerMessage, recordingFetch } from '../support/wire-schema.validator.js';

/**
 * Runtime registration in `McpRegistry` (registerTool / registerPrompt / registerResource /
 * registerResourceTemplate and their removals) over real HTTP: what discover advertises, what the lists show,
 * calls, the list_changed notifications on listen streams, and the errors registration throws.
 */

const SUB = 'io.modelcontextprotocol/subscriptionId';

type Json = Record<string, any>;

/** POSTs a request; checks the answer against the schema; returns the response. */
async function rpc(url: URL, method: string, params: Json = {}): Promise<RawResponse> {
  const response = await mcpPost(url, { method, params });
  assertValidServerMessage(response.json, 'result' in (response.json as Json) ? method : undefined);
  expect((response.json as Json).id).toBe(response.sentId);
  return response;
}

/** The result of a successful request. */
async function result(url: URL, method: string, params: Json = {}): Promise<Json> {
  const response = await rpc(url, method, params);
  expect(response.status, response.text).toBe(200);
  expect(response.json, response.text).toHaveProperty('result');
  return (response.json as { result: Json }).result;
}

/** The error of a failed request, with its HTTP status. */
async function failure(
  url: URL,
  method: string,
  params: Json = {},
): Promise<{ status: number; code: number; message: string; data?: unknown }> {
  const response = await rpc(url, method, params);
  expect(response.json, response.text).toHaveProperty('error');
  return { status: response.status, ...(response.json as { error: { code: number; message: string } }).error };
}

const capabilitiesOf = async (url: URL) => (await result(url, 'server/discover')).capabilities as Json;

/** Closes the app after dropping connections undici leaves behind (see subscriptions.e2e-spec.ts). */
async function closeApp(running: RunningApp | undefined): Promise<void> {
  (running?.app.getHttpServer() as Server | undefined)?.closeAllConnections();
  await running?.close();
}

describe.each(ADAPTERS)('runtime registration (%s)', (adapter) => {
  describe('switching declared handlers off and on, and handlers by name', () => {
    let running: RunningApp;
    let url: URL;
    let registry: McpRegistry;

    beforeAll(async () => {
      running = await startApp(adapter, { imports: [fullListenModule()] });
      url = running.mcpUrl;
      registry = running.app.get(McpRegistry);
    });
    afterAll(async () => {
      await closeApp(running);
    });

    it('disableTool hides a decorated tool from lists and calls, tells listeners, and enableTool brings it back', async () => {
      const stream = await listen(url, 'flags', { toolsListChanged: true });
      await stream.nextFrames(1, 5_000);
      try {
        expect(registry.disableTool('ping')).toBe(true);
        expect(registry.disableTool('ping')).toBe(false);
        await stream.waitFor(
          (message) => message.method === 'notifications/tools/list_changed',
          'the list change of disableTool',
          5_000,
        );
        // ping was the only tool: the server no longer has tools at all (capabilities follow the registry, ADR 0007).
        expect(await capabilitiesOf(url)).not.toHaveProperty('tools');
        const gone = await failure(url, 'tools/call', { name: 'ping', arguments: {} });
        expect([gone.status, gone.code]).toEqual([404, -32601]);
        expect(await registry.has('tools', 'ping')).toBe(false);

        expect(registry.enableTool('ping')).toBe(true);
        expect(registry.enableTool('ping')).toBe(false);
        await stream.until(
          () => stream.messages.filter((message) => message.method === 'notifications/tools/list_changed').length === 2,
          5_000,
          'the list change of enableTool',
        );
        expect((await result(url, 'tools/list')).tools.map((tool: Json) => tool.name)).toEqual(['ping']);
        expect((await result(url, 'tools/call', { name: 'ping', arguments: {} })).content).toEqual([
          { type: 'text', text: 'pong' },
        ]);
      } finally {
        stream.close();
      }
    });

    it('a runtime handler may be a provided name; an unknown name or a second provider of one is a definition error', async () => {
      registry.provideHandler<{ who?: string }>('hello', ({ who }) => `hello ${who ?? 'you'}`);
      expect(() => registry.provideHandler('hello', () => 'again')).toThrow(McpDefinitionError);
      expect(() => registry.registerTool({ name: 'rt.unknown' }, 'nobody-provides-this')).toThrow(
        /no handler is provided under the name "nobody-provides-this"/,
      );
      await registry.registerTool(
        { name: 'rt.hello', input: { type: 'object', properties: { who: { type: 'string' } } } },
        'hello',
      );
      try {
        expect((await result(url, 'tools/call', { name: 'rt.hello', arguments: { who: 'ops' } })).content).toEqual([
          { type: 'text', text: 'hello ops' },
        ]);
      } finally {
        expect(registry.removeTool('rt.hello')).toBe(true);
        await registry.settled();
      }
    });
  });

  describe('on a server that starts empty', () => {
    let running: RunningApp;
    let url: URL;
    let registry: McpRegistry;
    let subs: McpSubscriptionsService;
    const streams: OpenStream[] = [];

    beforeAll(async () => {
      running = await startApp(adapter, { imports: [emptyModule()] });
      url = running.mcpUrl;
      registry = running.app.get(McpRegistry);
      subs = running.app.get(McpSubscriptionsService);
    });
    afterEach(async () => {
      for (const stream of streams.splice(0)) {
        stream.close();
        await stream.ended;
        expect(stream.problems).toEqual([]);
      }
      await until(() => subs.openStreams === 0, 2_000, 'streams to end');
      // Every test leaves the registry empty again.
      expect(
        [registry.listTools(), registry.listPrompts(), registry.listResources(), registry.listResourceTemplates()].map(
          (l) => l.length,
        ),
      ).toEqual([0, 0, 0, 0]);
    });
    afterAll(async () => {
      await closeApp(running);
    });

    it('with nothing registered, discover advertises no feature and their methods answer 404 / -32601', async () => {
      const capabilities = await capabilitiesOf(url);
      for (const feature of ['tools', 'prompts', 'resources', 'completions'])
        expect(capabilities).not.toHaveProperty(feature);
      for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
        const error = await failure(url, method);
        expect([error.status, error.code], method).toEqual([404, -32601]);
      }
    });

    it('registerTool: advertised, listed with its definition, callable with validated input and a context; removeTool undoes it', async () => {
      let seenContext: unknown;
      registry.registerTool<{ a: number; b: number }>(
        {
          name: 'rt.add',
          title: 'Add',
          description: 'Adds at run time',
          input: {
            type: 'object',
            properties: { a: { type: 'integer' }, b: { type: 'integer' } },
            required: ['a', 'b'],
          },
          annotations: { readOnlyHint: true },
        },
        ({ a, b }, context) => {
          seenContext = context;
          return String(a + b);
        },
      );
      try {
        expect(await capabilitiesOf(url)).toMatchObject({ tools: { listChanged: true } });
        const { tools } = await result(url, 'tools/list');
        expect(tools).toEqual([
          {
            name: 'rt.add',
            title: 'Add',
            description: 'Adds at run time',
            inputSchema: {
              type: 'object',
              properties: { a: { type: 'integer' }, b: { type: 'integer' } },
              required: ['a', 'b'],
            },
            annotations: { readOnlyHint: true },
          },
        ]);
        const called = await result(url, 'tools/call', { name: 'rt.add', arguments: { a: 2, b: 3 } });
        expect(called.content).toEqual([{ type: 'text', text: '5' }]);
        expect(seenContext).toBeInstanceOf(McpToolContext);
        const invalid = await result(url, 'tools/call', { name: 'rt.add', arguments: { a: 'two' } });
        expect(invalid.isError).toBe(true);
      } finally {
        expect(registry.removeTool('rt.add')).toBe(true);
      }
      expect(await capabilitiesOf(url)).not.toHaveProperty('tools');
      const gone = await failure(url, 'tools/call', { name: 'rt.add', arguments: { a: 2, b: 3 } });
      expect([gone.status, gone.code]).toEqual([404, -32601]);
    });

    it('registerPrompt: advertised with completions, listed, rendered, required arguments checked, completion works; removePrompt undoes it', async () => {
      registry.registerPrompt<{ fruit: string; tone?: string }>(
        {
          name: 'rt_describe',
          description: 'Describes a fruit',
          arguments: [
            {
              name: 'fruit',
              required: true,
              complete: (value: string) => ['apple', 'apricot', 'banana'].filter((f) => f.startsWith(value)),
            },
            { name: 'tone' },
          ],
        },
        ({ fruit, tone }) => `Describe ${fruit} in a ${tone ?? 'neutral'} tone.`,
      );
      try {
        expect(await capabilitiesOf(url)).toMatchObject({ prompts: { listChanged: true }, completions: {} });
        const { prompts } = await result(url, 'prompts/list');
        expect(prompts).toEqual([
          {
            name: 'rt_describe',
            description: 'Describes a fruit',
            arguments: [{ name: 'fruit', required: true }, { name: 'tone' }],
          },
        ]);
        const rendered = await result(url, 'prompts/get', { name: 'rt_describe', arguments: { fruit: 'kiwi' } });
        expect(rendered.messages).toEqual([
          { role: 'user', content: { type: 'text', text: 'Describe kiwi in a neutral tone.' } },
        ]);
        const missing = await failure(url, 'prompts/get', { name: 'rt_describe', arguments: {} });
        expect(missing.code).toBe(-32602);
        const completed = await result(url, 'completion/complete', {
          ref: { type: 'ref/prompt', name: 'rt_describe' },
          argument: { name: 'fruit', value: 'ap' },
        });
        expect(completed.completion).toEqual({ values: ['apple', 'apricot'] });
      } finally {
        expect(registry.removePrompt('rt_describe')).toBe(true);
      }
      expect(await capabilitiesOf(url)).not.toHaveProperty('prompts');
      expect((await failure(url, 'prompts/list')).code).toBe(-32601);
    });

    it('registerResource: advertised, listed (name defaults to the URI), readable; removeResource undoes it', async () => {
      registry.registerResource(
        { uri: 'config://runtime', mimeType: 'application/json', description: 'Runtime config' },
        () => '{"ok":true}',
      );
      try {
        expect(await capabilitiesOf(url)).toMatchObject({ resources: { subscribe: true, listChanged: true } });
        const { resources } = await result(url, 'resources/list');
        expect(resources).toEqual([
          {
            uri: 'config://runtime',
            name: 'config://runtime',
            description: 'Runtime config',
            mimeType: 'application/json',
          },
        ]);
        const read = await result(url, 'resources/read', { uri: 'config://runtime' });
        expect(read.contents).toEqual([{ uri: 'config://runtime', mimeType: 'application/json', text: '{"ok":true}' }]);
      } finally {
        expect(registry.removeResource('config://runtime')).toBe(true);
      }
      expect(await capabilitiesOf(url)).not.toHaveProperty('resources');
    });

    it('registerResourceTemplate: listed, reads matching URIs with the variables, completes variables; removal undoes it', async () => {
      registry.registerResourceTemplate<{ id: string }>(
        {
          uriTemplate: 'notes://{id}',
          mimeType: 'text/plain',
          complete: { id: (value: string) => ['n1', 'n2', 'x9'].filter((id) => id.startsWith(value)) },
        },
        ({ id }) => `note ${id}`,
      );
      try {
        expect(await capabilitiesOf(url)).toMatchObject({
          resources: { subscribe: true, listChanged: true },
          completions: {},
        });
        const { resourceTemplates } = await result(url, 'resources/templates/list');
        expect(resourceTemplates).toEqual([
          { uriTemplate: 'notes://{id}', name: 'notes://{id}', mimeType: 'text/plain' },
        ]);
        const read = await result(url, 'resources/read', { uri: 'notes://n2' });
        expect(read.contents).toEqual([{ uri: 'notes://n2', mimeType: 'text/plain', text: 'note n2' }]);
        const completed = await result(url, 'completion/complete', {
          ref: { type: 'ref/resource', uri: 'notes://{id}' },
          argument: { name: 'id', value: 'n' },
        });
        expect(completed.completion).toEqual({ values: ['n1', 'n2'] });
        const notFound = await failure(url, 'resources/read', { uri: 'other://n2' });
        expect(notFound).toMatchObject({ code: -32602, data: { uri: 'other://n2' } });
      } finally {
        expect(registry.removeResourceTemplate('notes://{id}')).toBe(true);
      }
      expect(await capabilitiesOf(url)).not.toHaveProperty('resources');
    });

    it('every change is published to listen streams as the matching list_changed, tagged with the subscription id', async () => {
      // Features are judged when the stream opens, so seed one of each kind first.
      registry.registerTool({ name: 'seed_tool' }, () => 'seed');
      registry.registerPrompt({ name: 'seed_prompt' }, () => 'seed');
      registry.registerResource({ uri: 'seed://r' }, () => 'seed');
      const stream = await listen(url, 'changes', {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
      });
      streams.push(stream);
      const [ack] = await stream.nextFrames(1);
      expect(ack.params!.notifications).toStrictEqual({
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
      });

      registry.registerTool({ name: 'more_tool' }, () => 'x');
      registry.registerPrompt({ name: 'more_prompt' }, () => 'x');
      registry.registerResource({ uri: 'more://r' }, () => 'x');
      registry.registerResourceTemplate({ uriTemplate: 'more://t/{id}' }, () => 'x');
      registry.removeTool('more_tool');
      registry.removePrompt('more_prompt');
      registry.removeResource('more://r');
      registry.removeResourceTemplate('more://t/{id}');
      // Removing what is not registered publishes nothing.
      expect(registry.removeTool('never')).toBe(false);
      expect(registry.removePrompt('never')).toBe(false);
      expect(registry.removeResource('never://x')).toBe(false);
      expect(registry.removeResourceTemplate('never://{x}')).toBe(false);
      registry.removeTool('seed_tool');
      registry.removePrompt('seed_prompt');
      registry.removeResource('seed://r');

      await stream.nextFrames(12);
      expect(stream.messages.slice(1).map((m) => m.method!.split('/')[1])).toEqual([
        'tools',
        'prompts',
        'resources',
        'resources', // registrations (a template is a resources change)
        'tools',
        'prompts',
        'resources',
        'resources', // removals
        'tools',
        'prompts',
        'resources', // the seeds
      ]);
      for (const message of stream.messages) expect(message.params!._meta![SUB]).toBe('changes');
    });

    it('a stream opened while a feature was absent keeps to its acknowledgement when the feature appears later', async () => {
      const early = await listen(url, 'early', { toolsListChanged: true });
      streams.push(early);
      const [earlyAck] = await early.nextFrames(1);
      expect(earlyAck.params!.notifications).toStrictEqual({});
      registry.registerTool({ name: 'late_tool' }, () => 'late');
      const later = await listen(url, 'later', { toolsListChanged: true });
      streams.push(later);
      try {
        const [laterAck] = await later.nextFrames(1);
        expect(laterAck.params!.notifications).toStrictEqual({ toolsListChanged: true });
      } finally {
        registry.removeTool('late_tool');
      }
      // The removal reaches the later stream; the early one is on the same bus, so it would have had it by now.
      await later.nextFrames(2);
      // The early stream was told it would get no tools changes, and got none (spec 2026-07-28:
      // basic/patterns/subscriptions, "Opening a Stream").
      expect(early.messages).toHaveLength(1);
    });

    it('runtime entries work through the official client', async () => {
      registry.registerTool<{ text: string }>(
        { name: 'shout', input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
        ({ text }) => text.toUpperCase(),
      );
      registry.registerPrompt({ name: 'hello' }, () => 'Say hello.');
      registry.registerResource({ uri: 'memo://1', mimeType: 'text/plain' }, () => 'memo one');
      registry.registerResourceTemplate<{ n: string }>({ uriTemplate: 'memo://page/{n}' }, ({ n }) => `page ${n}`);
      const recorder = recordingFetch();
      const client = await connectClient(url, { fetch: recorder.fetch });
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['shout']);
        expect((await client.callTool({ name: 'shout', arguments: { text: 'hi' } })).content).toEqual([
          { type: 'text', text: 'HI' },
        ]);
        expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['hello']);
        expect((await client.getPrompt({ name: 'hello' })).messages).toEqual([
          { role: 'user', content: { type: 'text', text: 'Say hello.' } },
        ]);
        expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['memo://1']);
        expect((await client.readResource({ uri: 'memo://1' })).contents).toEqual([
          { uri: 'memo://1', mimeType: 'text/plain', text: 'memo one' },
        ]);
        expect(
          (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
        ).toEqual(['memo://page/{n}']);
        expect((await client.readResource({ uri: 'memo://page/3' })).contents).toEqual([
          { uri: 'memo://page/3', text: 'page 3' },
        ]);
        expect(await assertAllValid(recorder)).toBeGreaterThanOrEqual(8);
      } finally {
        await client.close();
        registry.removeTool('shout');
        registry.removePrompt('hello');
        registry.removeResource('memo://1');
        registry.removeResourceTemplate('memo://page/{n}');
      }
    });
  });

  describe('errors at registration', () => {
    let running: RunningApp;
    let url: URL;
    let registry: McpRegistry;
    const bus = new RecordingEventBus();

    beforeAll(async () => {
      running = await startApp(adapter, { imports: [fullListenModule({ eventBus: bus })] });
      url = running.mcpUrl;
      registry = running.app.get(McpRegistry);
    });
    afterAll(async () => {
      await closeApp(running);
    });

    it('a duplicate registration throws, publishes nothing, and leaves the first one in place', async () => {
      registry.registerTool({ name: 'twice' }, () => 'first');
      registry.registerPrompt({ name: 'twice_prompt' }, () => 'first');
      registry.registerResource({ uri: 'twice://r' }, () => 'first');
      registry.registerResourceTemplate({ uriTemplate: 'twice://t/{x}' }, () => 'first');
      const published = bus.published.length;
      try {
        expect(() => registry.registerTool({ name: 'twice' }, () => 'second')).toThrow(/duplicate tool "twice"/);
        expect(() => registry.registerPrompt({ name: 'twice_prompt' }, () => 'second')).toThrow(
          /duplicate prompt "twice_prompt"/,
        );
        expect(() => registry.registerResource({ uri: 'twice://r' }, () => 'second')).toThrow(
          /duplicate resource "twice:\/\/r"/,
        );
        expect(() => registry.registerResourceTemplate({ uriTemplate: 'twice://t/{x}' }, () => 'second')).toThrow(
          /duplicate resource template "twice:\/\/t\/\{x\}"/,
        );
        // Names taken by decorated handlers are taken too.
        expect(() => registry.registerTool({ name: 'ping' }, () => 'impostor')).toThrow(/duplicate tool "ping"/);
        expect(() => registry.registerPrompt({ name: 'greet' }, () => 'impostor')).toThrow(/duplicate prompt "greet"/);
        expect(() => registry.registerResource({ uri: 'config://app' }, () => 'impostor')).toThrow(
          /duplicate resource "config:\/\/app"/,
        );
        expect(bus.published.length).toBe(published);

        expect((await result(url, 'tools/call', { name: 'twice', arguments: {} })).content).toEqual([
          { type: 'text', text: 'first' },
        ]);
        expect((await result(url, 'tools/call', { name: 'ping', arguments: {} })).content).toEqual([
          { type: 'text', text: 'pong' },
        ]);
        expect((await result(url, 'prompts/get', { name: 'twice_prompt' })).messages[0].content.text).toBe('first');
        expect((await result(url, 'resources/read', { uri: 'twice://r' })).contents[0].text).toBe('first');
        expect((await result(url, 'resources/read', { uri: 'twice://t/1' })).contents[0].text).toBe('first');
      } finally {
        registry.removeTool('twice');
        registry.removePrompt('twice_prompt');
        registry.removeResource('twice://r');
        registry.removeResourceTemplate('twice://t/{x}');
      }
    });

    it.each(['bad name', '', 'x'.repeat(129), 'ümlaut', 'slash/name', 'colon:name'])(
      'registering a tool named %j throws McpDefinitionError naming it, and registers nothing',
      async (name) => {
        const published = bus.published.length;
        let thrown: unknown;
        try {
          registry.registerTool({ name }, () => 'x');
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(McpDefinitionError);
        expect((thrown as Error).message).toContain(`runtime tool "${name}"`);
        expect((thrown as Error).message).toMatch(/must be 1-128 characters/);
        expect(registry.getTool(name)).toBeUndefined();
        expect(bus.published.length).toBe(published);
        const listed = await result(url, 'tools/list');
        expect(listed.tools.map((tool: Json) => tool.name)).toEqual(['ping']);
      },
    );

    it('a tool name of exactly 128 allowed characters is accepted', () => {
      const name = `A-z_0.9${'x'.repeat(121)}`;
      expect(name).toHaveLength(128);
      registry.registerTool({ name }, () => 'x');
      expect(registry.removeTool(name)).toBe(true);
    });

    it.each([
      [
        'a resource whose URI is not absolute',
        (r: McpRegistry) => r.registerResource({ uri: 'not a uri' }, () => 'x'),
        McpDefinitionError,
        /not an absolute URI/,
      ],
      [
        'a resource with a negative size',
        (r: McpRegistry) => r.registerResource({ uri: 'size://x', size: -1 }, () => 'x'),
        McpDefinitionError,
        /size/,
      ],
      [
        'a malformed resource template',
        (r: McpRegistry) => r.registerResourceTemplate({ uriTemplate: 'notes://{id' }, () => 'x'),
        McpDefinitionError,
        /notes:\/\/\{id/,
      ],
      [
        'a template completion for an unknown variable',
        (r: McpRegistry) =>
          r.registerResourceTemplate({ uriTemplate: 'notes://{id}', complete: { other: () => [] } }, () => 'x'),
        McpDefinitionError,
        /"other", which is not a variable/,
      ],
      [
        'a prompt without a name',
        (r: McpRegistry) => r.registerPrompt({ name: '' }, () => 'x'),
        McpDefinitionError,
        /prompt name must not be empty/,
      ],
      [
        'a prompt with a duplicate argument',
        (r: McpRegistry) =>
          r.registerPrompt({ name: 'dup_args', arguments: [{ name: 'a' }, { name: 'a' }] }, () => 'x'),
        McpDefinitionError,
        /declares argument "a" twice/,
      ],
      [
        'a tool whose input schema is not valid JSON Schema',
        (r: McpRegistry) =>
          r.registerTool(
            { name: 'bad_schema', input: { type: 'object', properties: { a: { type: 'nope' } } } },
            () => 'x',
          ),
        McpDefinitionError,
        /bad_schema/,
      ],
      [
        'a tool with a broken x-mcp-header annotation',
        (r: McpRegistry) =>
          r.registerTool(
            {
              name: 'bad_header',
              input: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Bad Name' } } },
            },
            () => 'x',
          ),
        McpDefinitionError,
        /header token/,
      ],
    ])('%s throws and registers nothing', (_label, register, errorType, message) => {
      const before = [
        registry.listTools(),
        registry.listPrompts(),
        registry.listResources(),
        registry.listResourceTemplates(),
      ].map((l) => l.length);
      const published = bus.published.length;
      expect(() => register(registry)).toThrow(errorType);
      expect(() => register(registry)).toThrow(message);
      const after = [
        registry.listTools(),
        registry.listPrompts(),
        registry.listResources(),
        registry.listResourceTemplates(),
      ].map((l) => l.length);
      expect(after).toEqual(before);
      expect(bus.published.length).toBe(published);
    });
  });
});
