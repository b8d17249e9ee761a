import { Inject, Injectable, Module, type OnModuleInit, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  InjectMcpPublisher,
  InjectMcpRegistry,
  McpModule,
  McpPublisher,
  McpRegistry,
  McpStdio,
  McpTool,
  getMcpRegistryToken,
} from 'nest-mcp';
import { McpTestingClient } from 'nest-mcp/testing';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';
import { LineCollector, modernMeta } from '../support/stdio.harness.js';

/**
 * Several MCP servers in one application (`McpModule.forRoot({ name, path, include })`): each serves the handlers of
 * the modules it includes with its own options, its registry and publisher are injectable by its name, the testing
 * kit and stdio target it by name, and misconfigurations fail bootstrap with a clear message.
 */

let perCall = 0;

@Injectable()
class CustomerTools {
  @McpTool({ description: 'Looks an order up' })
  get_order(): string {
    return 'order 42: shipped';
  }
}

/** A request-scoped host on the public server: Nest builds one per call and injects the request. */
@Injectable({ scope: Scope.REQUEST })
class PerCallTools {
  private readonly serial = ++perCall;
  constructor(@Inject(REQUEST) private readonly request: { headers: Record<string, string | undefined> }) {}

  @McpTool({ description: 'Which instance served this call, and for whom' })
  who_am_i() {
    return { instance: this.serial, agent: this.request.headers['x-caller'] ?? 'unknown' };
  }
}

@Injectable()
class AdminTools {
  @McpTool({ description: 'Purges every cache' })
  purge_caches(): string {
    return 'purged';
  }

  @McpTool({ description: 'Rotates the signing keys' })
  rotate_keys(): string {
    return 'rotated';
  }

  @McpTool({ description: 'Rebuilds the search index, as a task', task: 'required' })
  rebuild_index(): string {
    return 'rebuilt';
  }
}

/** Injects the admin server's registry and publisher by name, and adds a tool to that server only. */
@Injectable()
class AdminPlugins implements OnModuleInit {
  constructor(
    @InjectMcpRegistry('admin') readonly registry: McpRegistry,
    @InjectMcpPublisher('admin') readonly publisher: McpPublisher,
  ) {}

  onModuleInit(): void {
    void this.registry.registerTool(
      { name: 'admin_runtime', description: 'Registered on the admin server' },
      () => 'runtime',
    );
  }
}

@Injectable()
class SharedTools {
  @McpTool({ description: 'Answers pong' })
  ping(): string {
    return 'pong';
  }
}

@Module({ providers: [CustomerTools, PerCallTools] })
class CustomerModule {}

@Module({ providers: [AdminTools, AdminPlugins] })
class AdminModule {}

@Module({ providers: [SharedTools] })
class SharedModule {}

@Module({
  imports: [
    McpModule.forRoot({
      name: 'public',
      version: '1.0.0',
      instructions: 'For customers.',
      include: [CustomerModule, SharedModule],
    }),
    McpModule.forRoot({
      name: 'admin',
      version: '1.0.0',
      path: '/admin/mcp',
      instructions: 'For operators.',
      include: [AdminModule, SharedModule],
      // Options of this server only: one tool per page, and no 2025-11-25 sessions.
      pageSize: 1,
      legacyWire: false,
    }),
    CustomerModule,
    AdminModule,
    SharedModule,
  ],
})
class TwoServersModule {}

const names = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name).sort();

describe.each(ADAPTERS)('two servers in one application (%s)', (adapter) => {
  let running: RunningApp;
  let adminUrl: URL;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [TwoServersModule] });
    adminUrl = new URL(`${running.baseUrl}/admin/mcp`);
  });
  afterAll(async () => {
    await running?.close();
  });

  it('lists on each path the handlers of the modules it includes: disjoint, but for the shared module', async () => {
    const publicClient = await connectClient(running.mcpUrl);
    const adminClient = await connectClient(adminUrl);
    try {
      const publicTools = names((await publicClient.listTools()).tools);
      const adminTools = names((await adminClient.listTools()).tools);
      expect(publicTools).toEqual(['get_order', 'ping', 'who_am_i']);
      expect(adminTools).toEqual(['admin_runtime', 'ping', 'purge_caches', 'rebuild_index', 'rotate_keys']);
      expect((await adminClient.callTool({ name: 'purge_caches', arguments: {} })).content).toEqual([
        { type: 'text', text: 'purged' },
      ]);
      // The public server does not know the admin tool: an unknown tool, as for any other name.
      const refused = await mcpPost(running.mcpUrl, {
        method: 'tools/call',
        params: { name: 'purge_caches', arguments: {} },
        meta: requestMeta(),
      });
      expect((refused.json as { error?: { code: number; message: string } }).error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('purge_caches'),
      });
    } finally {
      await publicClient.close();
      await adminClient.close();
    }
  });

  it('applies each server its own options', async () => {
    const discover = async (url: URL) =>
      (
        (await mcpPost(url, { method: 'server/discover', params: {}, meta: requestMeta() })).json as {
          result: Record<string, any>;
        }
      ).result;
    expect((await discover(running.mcpUrl)).instructions).toBe('For customers.');
    expect((await discover(adminUrl)).instructions).toBe('For operators.');

    const page = (await mcpPost(adminUrl, { method: 'tools/list', params: {}, meta: requestMeta() })).json as {
      result: { tools: unknown[]; nextCursor?: string };
    };
    expect(page.result.tools).toHaveLength(1);
    expect(page.result.nextCursor).toBeTypeOf('string');
    const publicPage = (await mcpPost(running.mcpUrl, { method: 'tools/list', params: {}, meta: requestMeta() }))
      .json as { result: { tools: unknown[] } };
    expect(publicPage.result.tools).toHaveLength(3);

    const initialize = (url: URL) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
        }),
      });
    const legacyOnPublic = await initialize(running.mcpUrl);
    expect(legacyOnPublic.status).toBe(200);
    expect(legacyOnPublic.headers.get('mcp-session-id')).toBeTruthy();
    await legacyOnPublic.text();
    const legacyOnAdmin = await initialize(adminUrl);
    expect(legacyOnAdmin.status).toBe(400);
    await legacyOnAdmin.text();
  });

  it('resolves a request-scoped host per call on the server that includes it', async () => {
    const withCaller: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-caller', 'e2e');
      return fetch(input, { ...init, headers });
    };
    const client = await connectClient(running.mcpUrl, { fetch: withCaller });
    try {
      const first = (await client.callTool({ name: 'who_am_i', arguments: {} })).structuredContent as {
        instance: number;
        agent: string;
      };
      const second = (await client.callTool({ name: 'who_am_i', arguments: {} })).structuredContent as {
        instance: number;
        agent: string;
      };
      expect([first.agent, second.agent]).toEqual(['e2e', 'e2e']);
      expect(second.instance).toBeGreaterThan(first.instance);
    } finally {
      await client.close();
    }
  });

  it('injects each server its own registry and publisher by name', () => {
    const plugins = running.app.get(AdminPlugins);
    expect(plugins.registry).toBe(running.app.get(getMcpRegistryToken('admin')));
    expect(plugins.registry).not.toBe(running.app.get(getMcpRegistryToken('public')));
    expect(plugins.publisher).toBeInstanceOf(McpPublisher);
  });
});

describe('the testing kit and stdio, per server', () => {
  it('McpTestingClient.create(app, { server }) calls the named server', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [TwoServersModule] }).compile();
    moduleRef.useLogger(false);
    try {
      const admin = await McpTestingClient.create(moduleRef, { server: 'admin' });
      const customer = await McpTestingClient.create(moduleRef, { server: 'public' });
      expect(names(await admin.listTools())).toEqual([
        'admin_runtime',
        'ping',
        'purge_caches',
        'rebuild_index',
        'rotate_keys',
      ]);
      // A task's rounds run on the server that created it (its own call runner), not on the application's first one.
      const task = await admin.startTask('rebuild_index');
      expect((await task.result()).content).toEqual([{ type: 'text', text: 'rebuilt' }]);
      expect(names(await customer.listTools())).toEqual(['get_order', 'ping', 'who_am_i']);
      expect((await admin.callTool('rotate_keys')).content).toEqual([{ type: 'text', text: 'rotated' }]);
      await expect(McpTestingClient.create(moduleRef, { server: 'nobody' })).rejects.toThrow(
        /no server named "nobody"/,
      );
      await expect(McpTestingClient.create(moduleRef)).rejects.toThrow(
        /the application has 2 MCP servers \(.*"admin".*\): pass \{ server: '<name>' \}/,
      );
    } finally {
      await moduleRef.close();
    }
  });

  it('McpStdio.attach(app, { server }) serves the named server on stdio', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [TwoServersModule] }).compile();
    moduleRef.useLogger(false);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const output = new LineCollector(stdout);
    const server = await McpStdio.attach(moduleRef, { stdin, stdout, server: 'admin' });
    try {
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } })}\n`,
      );
      const first = await output.response(1);
      expect(first.result.tools.map((tool: { name: string }) => tool.name)).toHaveLength(1);
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'purge_caches', arguments: {}, _meta: modernMeta() } })}\n`,
      );
      expect((await output.response(2)).result.content).toEqual([{ type: 'text', text: 'purged' }]);
    } finally {
      await server.close();
      await moduleRef.close();
    }
  });
});

describe('bootstrap errors of several servers', () => {
  it('refuses an include that names a module the application does not import', async () => {
    @Module({ imports: [McpModule.forRoot({ name: 'lonely', version: '1.0.0', include: [AdminModule] })] })
    class MissingInclude {}
    const moduleRef = await Test.createTestingModule({ imports: [MissingInclude] }).compile();
    moduleRef.useLogger(false);
    await expect(moduleRef.init()).rejects.toThrow(
      /McpModule "lonely": include names AdminModule, which the application does not import/,
    );
    await moduleRef.close().catch(() => undefined);
  });

  it('refuses two servers on one path', async () => {
    @Module({
      imports: [
        McpModule.forRoot({ name: 'one', version: '1.0.0', include: [SharedModule] }),
        McpModule.forRoot({ name: 'two', version: '1.0.0', include: [SharedModule] }),
        SharedModule,
      ],
    })
    class SamePath {}
    const moduleRef = await Test.createTestingModule({ imports: [SamePath] }).compile();
    moduleRef.useLogger(false);
    await expect(moduleRef.init()).rejects.toThrow(/the servers "(one|two)" and "(one|two)" both serve \/mcp/);
    await moduleRef.close().catch(() => undefined);
  });
});
