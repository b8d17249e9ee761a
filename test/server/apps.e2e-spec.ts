import type { Client } from '@modelcontextprotocol/client';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpAppView, McpAppViews, McpModule, McpResource, McpTool } from 'nest-mcp';
import { McpTestingClient, withAppsExtension } from 'nest-mcp/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appsModule, BOARD_HTML, BOARD_VIEW, FILE_VIEW, FILE_VIEW_PATH, toolRuns } from '../fixtures/apps.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient, type LegacyConnection } from '../support/legacy-client.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';

/**
 * MCP Apps (`io.modelcontextprotocol/ui`, ext-apps spec 2026-01-26) on both
 * wires, through the official client: tools name their view in `_meta.ui.resourceUri` and the flat `ui/resourceUri`
 * views are `ui://` resources with one `text/html;profile=mcp-app` content item carrying `_meta.ui`
 * (A-02..A-06, A-09, A-20); app-only tools are listed only to clients that declared the extension, in a private list
 * and stay callable; the extension is advertised. Companion prompts (the library's own)
 * follow their tool's visibility and never run it.
 */

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const APPS = withAppsExtension();
const BOARD_UI = {
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
  permissions: { clipboardWrite: {} },
  domain: 'board.example.com',
  prefersBorder: true,
};

type Tool = { name: string; _meta?: Record<string, unknown> };
const names = (tools: readonly Tool[]) => tools.map((tool) => tool.name).sort();

describe.each(ADAPTERS)('MCP Apps on both wires (%s)', (adapter) => {
  let running: RunningApp;
  let plain: Client;
  let apps: Client;
  let legacyPlain: LegacyConnection;
  let legacyApps: LegacyConnection;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [appsModule()] });
    plain = await connectClient(running.mcpUrl);
    apps = await connectClient(running.mcpUrl, { capabilities: APPS });
    legacyPlain = await connectLegacyClient(running.mcpUrl);
    legacyApps = await connectLegacyClient(running.mcpUrl, { capabilities: APPS });
  });
  afterAll(async () => {
    for (const client of [plain, apps, legacyPlain?.client, legacyApps?.client]) await client?.close();
    await running?.close();
  });
  beforeEach(() => toolRuns.clear());

  describe('2026-07-28', () => {
    it('advertises the extension in server/discover', async () => {
      const response = await mcpPost(running.mcpUrl, { method: 'server/discover' });
      const result = (response.json as { result: { capabilities: { extensions?: Record<string, unknown> } } }).result;
      expect(result.capabilities.extensions?.[UI]).toEqual({});
    });

    it('lists a tool with its view under _meta.ui.resourceUri and the flat ui/resourceUri, visibility when declared', async () => {
      const { tools } = await apps.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool as Tool]));
      expect(byName.get('show_board')!._meta).toEqual({
        ui: { resourceUri: BOARD_VIEW },
        'ui/resourceUri': BOARD_VIEW,
      });
      expect(byName.get('open_file_view')!._meta).toEqual({
        ui: { resourceUri: FILE_VIEW, visibility: ['model', 'app'] },
        'ui/resourceUri': FILE_VIEW,
      });
      expect(byName.get('board_refresh')!._meta).toEqual({ ui: { visibility: ['app'] } });
      // A hand-written _meta.ui is kept, and the flat key added.
      expect(byName.get('meta_board')!._meta).toEqual({
        ui: { resourceUri: BOARD_VIEW },
        'ui/resourceUri': BOARD_VIEW,
        other: 1,
      });
    });

    it('lists app-only tools only to clients that declared the extension, in a private list either way', async () => {
      expect(names((await plain.listTools()).tools)).toEqual(['meta_board', 'open_file_view', 'show_board']);
      expect(names((await apps.listTools()).tools)).toEqual([
        'board_refresh',
        'meta_board',
        'open_file_view',
        'show_board',
      ]);
      for (const capabilities of [{}, APPS]) {
        const meta = requestMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities });
        const response = await mcpPost(running.mcpUrl, { method: 'tools/list', meta });
        const result = (response.json as { result: { tools: Tool[]; cacheScope: string; ttlMs: number } }).result;
        expect(result.cacheScope).toBe('private');
        expect(result.tools.some((tool) => tool.name === 'board_refresh')).toBe(capabilities === APPS);
      }
      // A ui extension that names no MCP Apps MIME type is no Apps support.
      const without = requestMeta({
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [UI]: { mimeTypes: ['text/plain'] } } },
      });
      const response = await mcpPost(running.mcpUrl, { method: 'tools/list', meta: without });
      expect((response.json as { result: { tools: Tool[] } }).result.tools.map((tool) => tool.name)).not.toContain(
        'board_refresh',
      );
    });

    it('serves an app-only tool to any caller that calls it (visibility is not access control)', async () => {
      expect((await apps.callTool({ name: 'board_refresh', arguments: {} })).structuredContent).toEqual({ cards: 4 });
      expect((await plain.callTool({ name: 'board_refresh', arguments: {} })).structuredContent).toEqual({ cards: 4 });
      expect(toolRuns.get('board_refresh')).toBe(2);
    });

    it('reads a view as exactly one text/html;profile=mcp-app item with _meta.ui, a long ttlMs, and lists it with the same _meta.ui', async () => {
      const read = await apps.readResource({ uri: BOARD_VIEW });
      expect(read.contents).toEqual([{ uri: BOARD_VIEW, mimeType: MIME, text: BOARD_HTML, _meta: { ui: BOARD_UI } }]);
      const raw = await mcpPost(running.mcpUrl, { method: 'resources/read', params: { uri: BOARD_VIEW } });
      const result = (raw.json as { result: Record<string, unknown> }).result;
      // The view's ttlMs; the cache scope stays the configured one (private by default).
      expect(result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'private' });

      const { resources } = await plain.listResources();
      expect(resources.find((resource) => resource.uri === BOARD_VIEW)).toEqual({
        uri: BOARD_VIEW,
        name: 'board',
        title: 'Board',
        description: 'The board, live',
        mimeType: MIME,
        _meta: { ui: BOARD_UI },
      });
    });

    it('serves a view from a file, with its ttlMs', async () => {
      const read = await plain.readResource({ uri: FILE_VIEW });
      expect(read.contents).toHaveLength(1);
      expect(read.contents[0]).toMatchObject({ uri: FILE_VIEW, mimeType: MIME });
      expect((read.contents[0] as { text: string }).text).toContain('<p id="from-file">served from a file</p>');
      const raw = await mcpPost(running.mcpUrl, { method: 'resources/read', params: { uri: FILE_VIEW } });
      expect((raw.json as { result: { ttlMs: number } }).result.ttlMs).toBe(60_000);
    });

    it('lists a companion prompt with its tool, renders it from the tool name, and never runs the tool', async () => {
      const { prompts } = await plain.listPrompts();
      expect(prompts).toEqual([
        { name: 'plan_board', title: 'Plan with the board', description: 'Suggests opening the board' },
      ]);
      const prompt = await plain.getPrompt({ name: 'plan_board' });
      expect(prompt.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Open the board with show_board before changing anything.' } },
      ]);
      expect(prompt.description).toBe('Suggests opening the board');
      expect(toolRuns.size).toBe(0);
    });

    it('hides and refuses the companion prompt of a tool the caller cannot see (scopes), like the tool', async () => {
      // Without authorization an HTTP caller has no token, so admin_board (board:admin) is hidden: so is its prompt.
      expect(names((await plain.listTools()).tools)).not.toContain('admin_board');
      expect((await plain.listPrompts()).prompts.map((prompt) => prompt.name)).not.toContain('admin_plan');
      await expect(plain.getPrompt({ name: 'admin_plan' })).rejects.toThrow(
        /Insufficient scope: Tool .+admin_board.+ needs the scopes: board:admin/,
      );
      expect(toolRuns.size).toBe(0);
    });
  });

  describe('2025-11-25', () => {
    it('declares the extension in the initialize result', () => {
      expect(legacyPlain.client.getServerCapabilities()?.extensions).toMatchObject({ [UI]: {} });
    });

    it('lists app-only tools only in sessions that declared the extension, with the view _meta', async () => {
      const plainTools = (await legacyPlain.client.listTools()).tools;
      expect(names(plainTools)).toEqual(['meta_board', 'open_file_view', 'show_board']);
      expect((plainTools.find((tool) => tool.name === 'show_board') as Tool)._meta).toEqual({
        ui: { resourceUri: BOARD_VIEW },
        'ui/resourceUri': BOARD_VIEW,
      });
      expect(names((await legacyApps.client.listTools()).tools)).toEqual([
        'board_refresh',
        'meta_board',
        'open_file_view',
        'show_board',
      ]);
    });

    it('reads a view with the same item, without the 2026 cache hints', async () => {
      const read = (await legacyApps.client.readResource({ uri: BOARD_VIEW })) as Record<string, unknown>;
      expect(read.contents).toEqual([{ uri: BOARD_VIEW, mimeType: MIME, text: BOARD_HTML, _meta: { ui: BOARD_UI } }]);
      expect(read).not.toHaveProperty('ttlMs');
    });

    it('renders the companion prompt without running the tool, and calls the app-only tool', async () => {
      const prompt = await legacyPlain.client.getPrompt({ name: 'plan_board' });
      expect(prompt.messages[0]!.content).toEqual({
        type: 'text',
        text: 'Open the board with show_board before changing anything.',
      });
      expect(toolRuns.size).toBe(0);
      expect((await legacyApps.client.callTool({ name: 'board_refresh', arguments: {} })).structuredContent).toEqual({
        cards: 4,
      });
    });
  });
});

describe('MCP Apps in the testing kit', () => {
  it('lists and reads views, checked to be MCP Apps views', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [appsModule()] }).compile();
    const client = await McpTestingClient.create(moduleRef);
    try {
      expect((await client.listViews()).map((view) => view.uri).sort()).toEqual([BOARD_VIEW, FILE_VIEW]);
      const view = await client.readView(BOARD_VIEW);
      expect(view.html).toBe(BOARD_HTML);
      expect(view.ui).toEqual(BOARD_UI);
      expect(view.ttlMs).toBe(3_600_000);
      expect((await client.readView(FILE_VIEW)).html).toContain('served from a file');
      expect(names(await client.listTools({ capabilities: APPS }))).toContain('board_refresh');
      expect(names(await client.listTools())).not.toContain('board_refresh');
    } finally {
      await moduleRef.close();
    }
  });

  it('shows a companion prompt to callers whose scopes or the visibility hook let them see the tool, and only them', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        appsModule({
          visibility: (handler, caller) => !(handler.name === 'show_board' && caller.principal === 'guest'),
        }),
      ],
    }).compile();
    const client = await McpTestingClient.create(moduleRef);
    try {
      const admin = client.as({ subject: 'ada', scopes: ['board:admin'] });
      expect((await admin.listPrompts()).map((prompt) => prompt.name).sort()).toEqual(['admin_plan', 'plan_board']);
      expect((await admin.getPrompt('admin_plan')).text()).toBe('Ask an administrator before calling admin_board.');

      const viewer = client.as({ subject: 'vic', scopes: [] });
      expect((await viewer.listPrompts()).map((prompt) => prompt.name)).toEqual(['plan_board']);

      // The hook hides show_board from the guest: its companion prompt goes with it, and answers as unknown.
      const guest = client.as({ subject: 'guest', scopes: ['board:admin'] });
      expect(names(await guest.listTools())).not.toContain('show_board');
      expect((await guest.listPrompts()).map((prompt) => prompt.name)).toEqual(['admin_plan']);
      await expect(guest.getPrompt('plan_board')).rejects.toThrow('Unknown prompt: plan_board');
      expect(toolRuns.get('show_board') ?? 0).toBe(0);
      expect(toolRuns.get('admin_board') ?? 0).toBe(0);
    } finally {
      await moduleRef.close();
    }
  });

  it('registers a view at run time, and refuses a run-time tool whose view is missing', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [appsModule()] }).compile();
    await moduleRef.init();
    const { McpRegistry } = await import('nest-mcp');
    const registry = moduleRef.get(McpRegistry);
    const client = await McpTestingClient.create(moduleRef);
    try {
      expect(() => registry.registerTool({ name: 'late', app: { view: 'ui://late/view' } }, () => 'late')).toThrow(
        'nest-mcp: runtime tool "late": tool "late" names the view ui://late/view, which no @McpAppView (or McpAppViews.fromFile) serves',
      );
      registry.registerAppView('ui://late/view', { prefersBorder: false }, () => '<!DOCTYPE html><p>late</p>');
      registry.registerTool({ name: 'late', app: { view: 'ui://late/view' } }, () => 'late');
      expect((await client.readView('ui://late/view')).ui).toEqual({ prefersBorder: false });
    } finally {
      await moduleRef.close();
    }
  });
});

describe('MCP Apps declarations that fail bootstrap', () => {
  async function boot(...providers: Array<new (...args: never[]) => unknown>) {
    @Module({ imports: [McpModule.forRoot({ name: 'bad', version: '1.0.0' })], providers })
    class BadModule {}
    const moduleRef = await Test.createTestingModule({ imports: [BadModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      await app.init();
    } finally {
      await app.close().catch(() => undefined);
    }
  }

  it('refuses a view that is not a ui:// URI, naming the method', async () => {
    @Injectable()
    class HttpView {
      @McpTool({ app: { view: 'https://example.com/board.html' } })
      show() {
        return 'x';
      }
    }
    await expect(boot(HttpView)).rejects.toThrow(
      'nest-mcp: HttpView.show: tool "show": app view "https://example.com/board.html" must be a ui:// URI of printable ASCII',
    );
  });

  it('refuses a tool whose view nothing serves, and a ui:// resource that is not a view', async () => {
    @Injectable()
    class MissingView {
      @McpTool({ app: { view: 'ui://nowhere/view' } })
      show() {
        return 'x';
      }
    }
    await expect(boot(MissingView)).rejects.toThrow(
      'nest-mcp: MissingView.show: tool "show" names the view ui://nowhere/view, which no @McpAppView (or McpAppViews.fromFile) serves',
    );

    @Injectable()
    class PlainUiResource {
      @McpResource({ uri: 'ui://plain/page', mimeType: 'text/html' })
      page() {
        return '<!DOCTYPE html>';
      }
    }
    await expect(boot(PlainUiResource)).rejects.toThrow('ui:// URIs are reserved for MCP Apps views');
  });

  it('refuses a companion prompt on an app-only tool, and a model tool without a view', async () => {
    @Injectable()
    class AppOnlyCompanion {
      @McpTool({ app: { visibility: ['app'] }, companionPrompt: { name: 'p', render: () => 'x' } })
      refresh() {
        return 'x';
      }
    }
    await expect(boot(AppOnlyCompanion)).rejects.toThrow(
      `nest-mcp: AppOnlyCompanion.refresh: tool "refresh" is app-only (visibility: ['app']): it cannot have a companion prompt`,
    );

    @Injectable()
    class NoView {
      @McpTool({ app: { visibility: ['model'] } })
      show() {
        return 'x';
      }
    }
    await expect(boot(NoView)).rejects.toThrow('app needs a view (a ui:// URI) unless the tool is app-only');
  });

  it('refuses bad view metadata, and a view file that is missing or not HTML', async () => {
    @Injectable()
    class BadCsp {
      @McpAppView('ui://bad/csp', { csp: { connectDomains: ["https://ok.example.com; script-src 'unsafe-eval'"] } })
      view() {
        return '<!DOCTYPE html>';
      }
    }
    await expect(boot(BadCsp)).rejects.toThrow('nest-mcp: BadCsp.view: view ui://bad/csp: csp.connectDomains has');

    await expect(boot(McpAppViews.fromFile('ui://bad/file', '/nonexistent/view.html') as never)).rejects.toThrow(
      'the MCP Apps view ui://bad/file cannot read its file /nonexistent/view.html',
    );
    const notHtml = FILE_VIEW_PATH.replace(/file-view\.html$/, '../apps.fixture.ts');
    await expect(boot(McpAppViews.fromFile('ui://bad/ts', notHtml) as never)).rejects.toThrow(
      'which is not an HTML5 document',
    );
  });
});

describe('the examples of docs/apps.md', () => {
  it.each(['ReleasesModule', 'ReleasesFromMethodModule'] as const)(
    '%s serves the release board as the guide says',
    async (name) => {
      const examples = await import('../../docs/examples/apps/release-board.view.js');
      const { checkReleaseBoard } = await import('../../docs/examples/apps/apps-testing.js');
      const moduleRef = await Test.createTestingModule({ imports: [examples[name]] }).compile();
      await moduleRef.init();
      try {
        await checkReleaseBoard(moduleRef);
        const client = await McpTestingClient.create(moduleRef);
        expect((await client.getPrompt('plan_release')).text()).toBe(
          "Check the service's health first, then release it with release and watch the board.",
        );
        const tools = await client.listTools({ capabilities: APPS });
        expect(tools.find((tool) => tool.name === 'release')?._meta).toEqual({
          ui: { resourceUri: 'ui://releases/board' },
          'ui/resourceUri': 'ui://releases/board',
        });
      } finally {
        await moduleRef.close();
      }
    },
  );
});
