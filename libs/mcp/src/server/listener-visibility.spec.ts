import { Logger } from '@nestjs/common';
import { describe, expect, it, vi } from 'vitest';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import type { McpListenerSource } from '../protocol/listener-visibility.interface.js';
import { McpAccessPolicy } from './access.policy.js';

const AUTH = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'] };

function setup(
  options: Partial<McpModuleOptions> = {},
  scoped = true,
): { policy: McpAccessPolicy; registry: McpRegistry } {
  const all = { name: 'srv', version: '1', ...options } as McpModuleOptions;
  const registry = new McpRegistry();
  registry.registerResource({ uri: 'docs://welcome' }, () => 'welcome');
  registry.registerResource({ uri: 'internal://config', name: 'internal_config' }, () => 'config');
  if (scoped) {
    registry.registerResource({ uri: 'docs://handbook' }, () => 'handbook', { scopes: ['docs:read'] });
    registry.registerResourceTemplate({ uriTemplate: 'docs://pages/{id}' }, () => 'page', { scopes: ['docs:read'] });
  }
  return { policy: new McpAccessPolicy(all, new McpAuthenticator(new McpResolvedOptions(all)), registry), registry };
}

const token = (...scopes: string[]): McpAccessToken => ({ subject: 'ana', scopes, claims: {} });
const http = (accessToken?: McpAccessToken): McpListenerSource => ({
  principal: accessToken?.subject,
  accessToken,
  origin: 'http',
});
const local: McpListenerSource = { origin: 'stdio' };
const hideInternal: McpModuleOptions['visibility'] = (handler) => !handler.name.startsWith('internal_');

describe("McpAccessPolicy as the listeners' visibility", () => {
  it('builds no view when nothing can be hidden: no hook and no scoped resource, or no hook and a trusted caller', () => {
    expect(setup({}, false).policy.viewFor(http())).toBeUndefined();
    expect(setup({ auth: AUTH }, false).policy.viewFor(http(token()))).toBeUndefined();
    expect(setup({ auth: AUTH }).policy.viewFor(local)).toBeUndefined();
    expect(
      setup({ auth: AUTH }).policy.viewFor({ origin: 'task', task: { taskId: 't', authorized: true } }),
    ).toBeUndefined();
    // A remote caller with a scoped resource around, or any caller under a hook, gets one.
    expect(setup({ auth: AUTH }).policy.viewFor(http(token('docs:read')))).toBeDefined();
    expect(setup({ visibility: hideInternal }, false).policy.viewFor(local)).toBeDefined();
  });

  it('judges a URI as resources/read would serve it: static, then the first template; unknown ones are followed by nobody', () => {
    const { policy } = setup({ auth: AUTH, visibility: hideInternal });
    const outsider = policy.viewFor(http(token('team:ops')))!;
    const reader = policy.viewFor(http(token('docs:read')))!;
    const cases = ['docs://welcome', 'docs://handbook', 'docs://pages/1', 'internal://config', 'nothing://here'];
    expect(cases.map((uri) => [uri, outsider.follows(uri), outsider.hears(uri)])).toEqual([
      ['docs://welcome', true, true],
      ['docs://handbook', false, false],
      ['docs://pages/1', false, false],
      ['internal://config', false, false],
      ['nothing://here', false, true],
    ]);
    expect(cases.map((uri) => reader.follows(uri))).toEqual([true, true, true, false, false]);
    expect(reader.hears('x'.repeat(9000))).toBe(true);
  });

  it('a URI whose resource the hook hides may still be served by a visible template', () => {
    const { policy, registry } = setup({ auth: AUTH, visibility: hideInternal });
    registry.registerResourceTemplate({ uriTemplate: 'internal://{name}', name: 'public_internal' }, () => 'x');
    const view = policy.viewFor(http(token()))!;
    expect(view.follows('internal://config')).toBe(true);
  });

  it('forgets what it judged when the registry changes', () => {
    const { policy, registry } = setup({ auth: AUTH });
    const view = policy.viewFor(http(token()))!;
    expect(view.hears('docs://secret')).toBe(true);
    registry.registerResource({ uri: 'docs://secret' }, () => 'secret', { scopes: ['docs:admin'] });
    expect(view.hears('docs://secret')).toBe(false);
    registry.removeResource('docs://secret');
    expect(view.hears('docs://secret')).toBe(true);
  });

  it('a hook that throws hides (fails closed)', () => {
    vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { policy } = setup(
      {
        visibility: () => {
          throw new Error('down');
        },
      },
      false,
    );
    const view = policy.viewFor(local)!;
    expect(view.follows('docs://welcome')).toBe(false);
    expect(view.hears('docs://welcome')).toBe(false);
  });
});
