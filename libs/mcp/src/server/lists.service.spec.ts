import { describe, expect, it } from 'vitest';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpAccessPolicy } from './access.policy.js';
import { CursorCodec } from './cursor.codec.js';
import { McpListsService } from './lists.service.js';

const AUTH = {
  resource: 'https://mcp.example.com/mcp',
  authorizationServers: ['https://auth.example.com'],
  scopeHierarchy: { admin: ['write'] },
};

/** Lists over a registry with tools a (open), b (write), c (admin), d (open), built as the module builds them. */
function listsWith(options: Partial<McpModuleOptions> = {}) {
  const all = {
    name: 'srv',
    version: '1',
    pageSize: 2,
    cacheHints: { toolsList: { ttlMs: 5_000, cacheScope: 'public' as const } },
    ...options,
  };
  const resolved = new McpResolvedOptions(all);
  const registry = new McpRegistry();
  registry.registerTool({ name: 'a' }, () => 'a');
  registry.registerTool({ name: 'b' }, () => 'b', { scopes: ['write'] });
  registry.registerTool({ name: 'c' }, () => 'c', { scopes: ['admin'] });
  registry.registerTool({ name: 'd' }, () => 'd');
  const lists = new McpListsService(registry, resolved, new McpAccessPolicy(all, new McpAuthenticator(resolved)));
  return { lists, registry };
}

const token = (...scopes: string[]): McpAccessToken => ({ subject: 'ana', scopes, claims: {} });
const scope = (caller: { accessToken?: McpAccessToken; http?: boolean }, cursor?: string) =>
  ({
    id: 1,
    params: cursor === undefined ? {} : { cursor },
    accessToken: caller.accessToken,
    origin: caller.http ? 'http' : 'stdio',
  }) as unknown as McpRequestScope;

/** Every page for one caller: the names, and the cache hints of each page. */
function all(lists: McpListsService, caller: { accessToken?: McpAccessToken; http?: boolean }) {
  const names: string[] = [];
  const hints: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = lists.tools.page(scope(caller, cursor)) as {
      tools: Array<{ name: string }>;
      nextCursor?: string;
      ttlMs: number;
      cacheScope: string;
    };
    names.push(...page.tools.map((tool) => tool.name));
    hints.push({ ttlMs: page.ttlMs, cacheScope: page.cacheScope });
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { names, hints };
}

describe('McpListing per caller', () => {
  it('without auth, hook or scoped entries: the shared pages with the configured hints (the fast path)', () => {
    const { lists, registry } = listsWith();
    registry.removeTool('b');
    registry.removeTool('c');
    expect(all(lists, { http: true })).toEqual({ names: ['a', 'd'], hints: [{ ttlMs: 5_000, cacheScope: 'public' }] });
  });

  it('with auth: each token sees what its scopes allow (hierarchy included), every page private, cursors in the filtered list', () => {
    const { lists } = listsWith({ auth: AUTH });
    expect(all(lists, { accessToken: token(), http: true })).toEqual({
      names: ['a', 'd'],
      hints: [{ ttlMs: 5_000, cacheScope: 'private' }],
    });
    const writer = all(lists, { accessToken: token('write'), http: true });
    expect(writer.names).toEqual(['a', 'b', 'd']);
    expect(writer.hints).toEqual([
      { ttlMs: 5_000, cacheScope: 'private' },
      { ttlMs: 5_000, cacheScope: 'private' },
    ]);
    expect(all(lists, { accessToken: token('admin'), http: true }).names).toEqual(['a', 'b', 'c', 'd']);
    // A local caller (stdio) is trusted: everything, still private.
    expect(all(lists, {}).names).toEqual(['a', 'b', 'c', 'd']);
  });

  it('with auth and no scoped entry: everything for everyone, but private (the server filters per caller)', () => {
    const { lists, registry } = listsWith({ auth: AUTH });
    registry.removeTool('b');
    registry.removeTool('c');
    expect(all(lists, { accessToken: token(), http: true })).toEqual({
      names: ['a', 'd'],
      hints: [{ ttlMs: 5_000, cacheScope: 'private' }],
    });
  });

  it("a cursor past the end of the caller's own list is refused", () => {
    const { lists } = listsWith({ auth: AUTH });
    expect(() => lists.tools.page(scope({ accessToken: token(), http: true }, CursorCodec.encode('tools', 2)))).toThrow(
      'Invalid params: invalid cursor',
    );
  });

  it('without auth, scoped entries are hidden from HTTP callers (no token can satisfy them) and shown to local ones', () => {
    const { lists } = listsWith();
    expect(all(lists, { http: true })).toEqual({ names: ['a', 'd'], hints: [{ ttlMs: 5_000, cacheScope: 'private' }] });
    expect(all(lists, {}).names).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a visibility hook filters per request, with the caller it sees, on top of the scopes', () => {
    const calls: string[] = [];
    const { lists } = listsWith({
      auth: AUTH,
      visibility: (handler, caller) => (calls.push(`${handler.name}:${caller.scopes.join(',')}`), handler.name !== 'd'),
    });
    expect(all(lists, { accessToken: token('admin'), http: true }).names).toEqual(['a', 'b', 'c']);
    expect(calls.slice(0, 4)).toEqual(['a:admin', 'b:admin', 'c:admin', 'd:admin']);
  });

  it('a change of the registry is seen at once by the filtered lists', () => {
    const { lists, registry } = listsWith({ auth: AUTH });
    const writer = { accessToken: token('write'), http: true };
    expect(all(lists, writer).names).toEqual(['a', 'b', 'd']);
    registry.registerTool({ name: 'e' }, () => 'e', { scopes: ['write'] });
    expect(all(lists, writer).names).toEqual(['a', 'b', 'd', 'e']);
  });

  it('stays right beyond the number of scope sets it keeps', () => {
    const { lists } = listsWith({ auth: AUTH });
    for (let i = 0; i < 300; i++)
      expect(all(lists, { accessToken: token(`s${i}`, ...(i % 2 ? ['write'] : [])), http: true }).names.length).toBe(
        i % 2 ? 3 : 2,
      );
    expect(all(lists, { accessToken: token('s0'), http: true }).names).toEqual(['a', 'd']);
  });
});
