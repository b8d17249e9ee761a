import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { Injectable, type LoggerService, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpCtx, McpForm, McpInput, McpModule, McpTool, McpToolContext } from 'nest-mcp';
import { McpTestingClient, McpTestingError } from 'nest-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppModule as DemoModule } from '../../apps/demo/src/app.module.js';
import { AgentsModule } from '../../docs/examples/configuration/endpoint-path.module.js';
import { AppModule as AsyncOptionsModule } from '../../docs/examples/configuration/async-options.module.js';
import { CacheHintsModule } from '../../docs/examples/configuration/cache-hints.module.js';
import { AppModule as PublicHostsModule } from '../../docs/examples/deployment/public-hosts.module.js';
import { askEveryKind } from '../../docs/examples/elicitation/asking.js';
import { AppModule as GettingStartedModule } from '../../docs/examples/getting-started/app.module.js';
import { CalculatorTools } from '../../docs/examples/getting-started/calculator.tools.js';
import { PageTools } from '../../docs/examples/logging-and-cancellation/fetch-page.tools.js';
import { MathTools } from '../../docs/examples/migration/from-sdk.js';
import { AppModule as BearerAuthModule } from '../../docs/examples/pipeline/bearer-auth.module.js';
import { AgentTools as CallerAgentTools } from '../../docs/examples/pipeline/caller-agent.tools.js';
import { FriendlyErrors } from '../../docs/examples/pipeline/friendly-errors.filter.js';
import { PaymentTools } from '../../docs/examples/pipeline/payment.tools.js';
import { ConfigStore } from '../../docs/examples/resources/config-store.js';
import { logs } from '../../docs/examples/resources/uri-template.js';
import { PluginLoader } from '../../docs/examples/tools/plugin-loader.js';
import { SearchTools } from '../../docs/examples/tools/search.tools.js';
import { WeatherTools } from '../../docs/examples/tools/weather.tools.js';
import { InteractiveModule } from '../fixtures/interactive.fixture.js';
import { StreamingModule } from '../fixtures/streaming.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, mcpPostViaHttp } from '../support/raw-request.util.js';

/*
 * Runs the example code of docs/ (docs/examples/**, type-checked by `npm run typecheck`; the fences of the guides are
 * kept identical to it by scripts/docs-snippets.mjs). Scripts written against `http://127.0.0.1:3000` run unchanged:
 * their requests are redirected to the test's server on a free port.
 */

const DOCUMENTED_ORIGIN = 'http://127.0.0.1:3000';
const STATE_KEY = Buffer.alloc(32, 3).toString('base64');

/**
 * Runs a client script of docs/examples against `server` and returns what it printed with `console.log`. A script
 * runs when it is first imported, so each is run once.
 */
async function runScript(load: () => Promise<unknown>, server: RunningApp): Promise<unknown[][]> {
  const realFetch = globalThis.fetch;
  const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(DOCUMENTED_ORIGIN)) return realFetch(input, init);
    const target = server.baseUrl + url.slice(DOCUMENTED_ORIGIN.length);
    return realFetch(input instanceof Request ? new Request(target, input) : target, init);
  });
  try {
    await load();
    return printed.mock.calls;
  } finally {
    vi.unstubAllGlobals();
    printed.mockRestore();
  }
}

/** The fenced blocks of a Markdown file, in order, with their language. */
function fences(markdownPath: string): { language: string; body: string }[] {
  const markdown = readFileSync(new URL(markdownPath, import.meta.url), 'utf8');
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map(([, language, body]) => ({ language, body }));
}

/** The curl request of docs/getting-started.md, and the answer the page shows for it. */
function documentedCurl(): { url: string; headers: Record<string, string>; body: string; answer: unknown } {
  const blocks = fences('../../docs/getting-started.md');
  const index = blocks.findIndex((block) => block.language === 'bash' && block.body.startsWith('curl '));
  const command = blocks[index].body;
  const url = /^curl -s (\S+)/.exec(command)![1];
  const headers = Object.fromEntries(
    [...command.matchAll(/-H '([^:']+): ([^']*)'/g)].map(([, name, value]) => [name, value]),
  );
  const body = /-d '([^']*)'/.exec(command)![1];
  return { url, headers, body, answer: JSON.parse(blocks[index + 1].body) };
}

async function compile(metadata: Parameters<typeof Test.createTestingModule>[0]): Promise<TestingModule> {
  return Test.createTestingModule(metadata).compile();
}

describe.each(ADAPTERS)('docs/getting-started.md (%s)', (adapter) => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startApp(adapter, { imports: [GettingStartedModule] });
  });
  afterAll(() => server?.close());

  it('serves the official client pinned to 2026-07-28', async () => {
    const client = await connectClient(server.mcpUrl);
    try {
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      expect(result.structuredContent).toEqual({ sum: 42 });
    } finally {
      await client.close();
    }
  });

  it('answers the curl request of the page with the answer the page shows', async () => {
    const curl = documentedCurl();
    expect(curl.url).toBe(`${DOCUMENTED_ORIGIN}/mcp`);
    const response = await fetch(server.baseUrl + curl.url.slice(DOCUMENTED_ORIGIN.length), {
      method: 'POST',
      headers: curl.headers,
      body: curl.body,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(curl.answer);
  });
});

describe('docs/getting-started.md, once', () => {
  it('runs the client script of the page: lists the tool and calls it', async () => {
    const server = await startApp('express', { imports: [GettingStartedModule] });
    try {
      const printed = await runScript(() => import('../../docs/examples/getting-started/client.js'), server);
      expect(printed).toEqual([[['add']], [{ sum: 42 }], [[{ type: 'text', text: '{"sum":42}' }]]]);
    } finally {
      await server.close();
    }
  });

  it('logs the line the page shows', async () => {
    const lines: string[] = [];
    const logger: LoggerService = {
      log: (message: unknown, context?: unknown) => lines.push(`[${String(context)}] ${String(message)}`),
      error: () => undefined,
      warn: () => undefined,
    };
    const app = await NestFactory.create(GettingStartedModule, { logger });
    await app.init();
    await app.close();
    const shown = fences('../../docs/getting-started.md').find((block) => block.body.startsWith('[McpExplorer]'));
    expect(lines).toContain(shown!.body.trim());
  });
});

describe('client scripts of the guides', () => {
  let server: RunningApp | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('progress.md: onprogress sees every step', async () => {
    server = await startApp('express', { imports: [InteractiveModule] });
    const printed = await runScript(() => import('../../docs/examples/progress/client.js'), server);
    expect(printed).toEqual([
      [0.5, 1.5, 'step 1 of 3'],
      [1, 1.5, 'step 2 of 3'],
      [1.5, 1.5, 'step 3 of 3'],
      [[{ type: 'text', text: 'done 3' }]],
    ]);
  });

  it('logging-and-cancellation.md: the messages at or above the requested level arrive', async () => {
    server = await startApp('express', { imports: [StreamingModule] });
    const printed = await runScript(() => import('../../docs/examples/logging-and-cancellation/client.js'), server);
    expect(printed).toEqual(
      ['critical', 'alert', 'emergency'].map((level) => [
        { level, logger: 'chatty', data: { level, note: `a ${level} message` } },
      ]),
    );
  });

  it('completion.md: completes a prompt argument and a template variable of the demo', async () => {
    server = await startApp('express', { imports: [DemoModule] });
    const printed = await runScript(() => import('../../docs/examples/completion/client.js'), server);
    expect(printed).toEqual([[['checkout-api']], [['payments-worker']]]);
  });

  it('elicitation.md: the official client answers the demo’s form and gets the final result', async () => {
    server = await startApp('express', { imports: [DemoModule] });
    const printed = await runScript(() => import('../../docs/examples/elicitation/client.js'), server);
    expect(printed).toEqual([
      ['Decommission inventory-sync? Its 0 replicas and its logs are deleted for good.'],
      [[{ type: 'text', text: 'Decommissioned inventory-sync (replaced by stock-sync).' }]],
    ]);
  });
});

describe('tools.md', () => {
  it('validates a Standard Schema input and applies its defaults', async () => {
    const moduleRef = await compile({
      imports: [McpModule.forRoot({ name: 'weather', version: '1.0.0' })],
      providers: [WeatherTools],
    });
    const client = await McpTestingClient.create(moduleRef);
    expect((await client.callTool('forecast', { city: 'Oslo' })).text()).toBe('3-day forecast for Oslo');
    expect((await client.callTool('forecast', { city: 'Oslo', days: 9 })).isError).toBe(true);
    await moduleRef.close();
  });

  it('checks the Mcp-Param-Region header against the region argument', async () => {
    const server = await startApp('express', {
      imports: [McpModule.forRoot({ name: 'search', version: '1.0.0' })],
      providers: [SearchTools],
    });
    try {
      const params = { name: 'search', arguments: { region: 'eu-west-1', query: 'logs' } };
      const matching = await mcpPost(server.mcpUrl, {
        method: 'tools/call',
        params,
        headers: { 'mcp-param-region': 'eu-west-1' },
      });
      expect(matching.json).toMatchObject({
        result: { content: [{ type: 'text', text: 'results for "logs" in eu-west-1' }] },
      });
      const missing = await mcpPost(server.mcpUrl, { method: 'tools/call', params });
      expect(missing.status).toBe(400);
      expect(missing.json).toMatchObject({ error: { code: -32020 } });
    } finally {
      await server.close();
    }
  });

  it('registers and removes a tool at run time', async () => {
    const moduleRef = await compile({
      imports: [McpModule.forRoot({ name: 'plugins', version: '1.0.0' })],
      providers: [PluginLoader],
    });
    const client = await McpTestingClient.create(moduleRef);
    moduleRef.get(PluginLoader).enable();
    expect((await client.callTool('ping')).text()).toBe('pong');
    moduleRef.get(PluginLoader).disable();
    await expect(client.callTool('ping')).rejects.toBeInstanceOf(McpTestingError);
    await moduleRef.close();
  });
});

describe('configuration.md', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('adds the configured cache hints to tools/list', async () => {
    const moduleRef = await compile({ imports: [CacheHintsModule], providers: [CalculatorTools] });
    const client = await McpTestingClient.create(moduleRef);
    expect(await client.request('tools/list')).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(await client.discover()).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    await moduleRef.close();
  });

  it('serves the endpoint at the configured path', async () => {
    const server = await startApp(
      'express',
      { imports: [AgentsModule], providers: [CalculatorTools] },
      { path: '/agents/mcp' },
    );
    const client = await connectClient(server.mcpUrl);
    try {
      expect((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({ sum: 3 });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('takes forRootAsync options from the injected settings, and fails fast without them', async () => {
    vi.stubEnv('APP_VERSION', '2.5.0');
    vi.stubEnv('MCP_REQUEST_STATE_KEYS', STATE_KEY);
    const moduleRef = await compile({ imports: [AsyncOptionsModule], providers: [CalculatorTools] });
    const discovered = await (await McpTestingClient.create(moduleRef)).discover();
    expect(discovered._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'ops-console',
      version: '2.5.0',
    });
    await moduleRef.close();

    vi.stubEnv('MCP_REQUEST_STATE_KEYS', '');
    await expect(compile({ imports: [AsyncOptionsModule] })).rejects.toThrow('MCP_REQUEST_STATE_KEYS is not set');
  });

  it.each([
    ['configuration.md', () => import('../../docs/examples/configuration/state-keys.module.js')],
    ['elicitation.md, rotation', () => import('../../docs/examples/elicitation/key-rotation.module.js')],
    ['elicitation.md, principal', () => import('../../docs/examples/elicitation/principal.module.js')],
  ])('%s: boots with requestState keys from the environment', async (_doc, load) => {
    vi.stubEnv('MCP_REQUEST_STATE_KEYS', `${STATE_KEY}, ${Buffer.alloc(32, 4).toString('base64')}`);
    vi.stubEnv('MCP_STATE_KEY', STATE_KEY);
    vi.stubEnv('MCP_PREVIOUS_STATE_KEY', Buffer.alloc(32, 4).toString('base64'));
    // The modules read the environment when loaded, which is here: nothing imported them before.
    const { AppModule } = await load();
    const moduleRef = await compile({ imports: [AppModule], providers: [CalculatorTools] });
    expect((await (await McpTestingClient.create(moduleRef)).callTool('add', { a: 1, b: 1 })).structured()).toEqual({
      sum: 2,
    });
    await moduleRef.close();
  });
});

describe('deployment.md and http-transport.md: public host names', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startApp('express', { imports: [PublicHostsModule], providers: [CalculatorTools] });
  });
  afterAll(() => server?.close());

  const call = { method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } };

  it('accepts the listed Host and Origin', async () => {
    const response = await mcpPostViaHttp(server.mcpUrl, {
      ...call,
      headers: { host: 'mcp.example.com', origin: 'https://console.example.com' },
    });
    expect(response.status).toBe(200);
  });

  it('refuses other hosts and origins with 403', async () => {
    expect((await mcpPostViaHttp(server.mcpUrl, call)).status).toBe(403);
    const otherOrigin = await mcpPostViaHttp(server.mcpUrl, {
      ...call,
      headers: { host: 'mcp.example.com', origin: 'https://evil.example' },
    });
    expect(otherOrigin.status).toBe(403);
  });
});

/** Uses the examples' handlers and filters inside tools of the test's own. */
@Injectable()
class ExampleHosts {
  @McpTool({ description: 'Asks for a completion, a sign-in and the roots' })
  everyKind(@McpCtx() ctx: McpToolContext) {
    return askEveryKind(ctx);
  }

  @McpTool({ description: 'Fails after a confirmation, behind FriendlyErrors' })
  @UseFilters(FriendlyErrors)
  async friendly(@McpCtx() ctx: McpToolContext) {
    await ctx.elicit('go', McpInput.form('Go?', McpForm.object({ go: McpForm.boolean() })));
    throw new Error('disk full');
  }
}

describe('elicitation.md and pipeline.md handlers', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    moduleRef = await compile({
      imports: [McpModule.forRoot({ name: 'examples', version: '1.0.0' })],
      providers: [ExampleHosts, PaymentTools, CallerAgentTools, MathTools, PageTools, ConfigStore],
    });
  });
  afterAll(() => moduleRef.close());

  it('asks for sampling, a URL and the roots, one round each', async () => {
    const client = await McpTestingClient.create(moduleRef, {
      capabilities: { sampling: {}, elicitation: { url: {} }, roots: {} },
    });
    client.answerWith(
      { role: 'assistant', content: { type: 'text', text: 'Modules compose' }, model: 'haiku-1' },
      { action: 'accept' },
      { roots: [{ uri: 'file:///work', name: 'work' }] },
    );
    const result = await client.callTool('everyKind');
    expect(result.inputRequests.map((request) => request.method)).toEqual([
      'sampling/createMessage',
      'elicitation/create',
      'roots/list',
    ]);
    expect(result.structured()).toMatchObject({
      answer: { model: 'haiku-1' },
      signIn: { action: 'accept' },
      roots: [{ uri: 'file:///work' }],
    });
  });

  it('FriendlyErrors lets the elicitation through and rewrites the failure', async () => {
    const client = await McpTestingClient.create(moduleRef, { capabilities: { elicitation: { form: {} } } });
    const result = await client.callTool('friendly', {}, { answers: [{ action: 'accept', content: { go: true } }] });
    expect(result.rounds).toBe(2);
    expect(result.isError).toBe(true);
    expect(result.text()).toBe('friendly: disk full');
  });

  it('PaymentFilter turns the error into an isError result', async () => {
    const result = await (await McpTestingClient.create(moduleRef)).callTool('pay');
    expect(result.isError).toBe(true);
    expect(result.text()).toBe('pay: card declined');
  });

  it('a custom parameter decorator reads the HTTP request', async () => {
    const client = await McpTestingClient.create(moduleRef, { headers: { 'user-agent': 'docs-agent/1.0' } });
    expect((await client.callTool('agent')).text()).toBe('agent called by docs-agent/1.0');
  });

  it('migration.md: the migrated tool answers like the SDK one', async () => {
    expect((await (await McpTestingClient.create(moduleRef)).callTool('add', { a: 2, b: 40 })).text()).toBe('42');
  });

  it('logging-and-cancellation.md: fetchPage reads a page', async () => {
    const page: Server = createServer((_request, response) => response.end('<h1>hello</h1>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
      expect((await (await McpTestingClient.create(moduleRef)).callTool('fetchPage', { url })).text()).toBe(
        '<h1>hello</h1>',
      );
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
  });

  it('resources.md: saving the config tells subscribed listeners', async () => {
    const client = await McpTestingClient.create(moduleRef);
    const stream = await client.listen({ resourceSubscriptions: ['config://app'] });
    try {
      await moduleRef.get(ConfigStore).save({ debug: true });
      const updated = await stream.next('notifications/resources/updated');
      expect(updated.params).toMatchObject({ uri: 'config://app' });
      expect((await client.readResource('config://app')).text()).toBe('{"debug":true}');
    } finally {
      await stream.close();
    }
  });

  it('resources.md: UriTemplate expands and matches as shown', () => {
    expect(logs.expand({ name: 'checkout-api' })).toBe('ops://services/checkout-api/logs');
    expect(logs.match('ops://services/checkout-api/logs')).toEqual({ name: 'checkout-api' });
  });
});

describe('pipeline.md: bearer authentication in a middleware', () => {
  let server: RunningApp;
  beforeAll(async () => {
    server = await startApp('express', { imports: [BearerAuthModule] });
  });
  afterAll(() => server?.close());

  it('answers 401 with WWW-Authenticate before any MCP processing', async () => {
    const response = await mcpPost(server.mcpUrl, { method: 'tools/list' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('lets a known token through, and principal names the caller', async () => {
    const withToken: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', 'Bearer token-of-alice');
      return fetch(input, { ...init, headers });
    };
    const client = await connectClient(server.mcpUrl, { fetch: withToken });
    try {
      expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([
        { type: 'text', text: 'alice' },
      ]);
    } finally {
      await client.close();
    }
  });
});
