import { describe, expect, it } from 'vitest';
import { resolvedOptions } from '../../../../test/support/resolved-options.factory.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpAccessPolicy } from './access.policy.js';
import { McpDiscoverService } from './discover.service.js';
import type { McpExtension } from './extension.interface.js';
import { TASKS_EXTENSION } from '../protocol/task.constants.js';

/** The tasks extension's advertisement alone (tasks/task-methods.service.ts): once a tool it is shown may run as a task. */
const tasksLike: McpExtension = {
  id: TASKS_EXTENSION,
  advertise: (view) => (view.tools.some((tool) => tool.task !== undefined) ? {} : undefined),
};

function serviceWith(
  options: Partial<McpModuleOptions> = {},
  extensions: McpExtension[] = [tasksLike],
): { registry: McpRegistry; service: McpDiscoverService } {
  const registry = new McpRegistry();
  const resolved = resolvedOptions(options);
  const all = { name: 'test', version: '1.0.0', ...options };
  const access = new McpAccessPolicy(all, new McpAuthenticator(new McpResolvedOptions(all)));
  return { registry, service: new McpDiscoverService(registry, resolved, access, extensions) };
}

/** A request scope of an HTTP caller with a verified token granting `scopes`. */
function remoteCaller(scopes: string[]): McpRequestScope {
  const accessToken: McpAccessToken = { subject: 'alice', scopes, claims: {} };
  return { principal: 'alice', accessToken, origin: 'http' } as unknown as McpRequestScope;
}

const noop = () => 'ok';

describe('McpDiscoverService.capabilities (what gates every method)', () => {
  it('advertises only logging while nothing is registered', () => {
    expect(serviceWith().service.capabilities()).toEqual({ logging: {} });
  });

  it('advertises a feature when something of its kind is registered; completions with prompts or resources', () => {
    const { registry, service } = serviceWith();
    registry.registerTool({ name: 't' }, noop);
    expect(service.capabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    registry.registerPrompt({ name: 'p' }, noop);
    expect(service.capabilities()).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    });
  });

  it('advertises resources (with subscribe) for a resource template alone, and withdraws it when the last one goes', () => {
    const { registry, service } = serviceWith();
    registry.registerResourceTemplate({ uriTemplate: 'users://{id}' }, noop);
    expect(service.capabilities()).toEqual({
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
    });
    registry.removeResourceTemplate('users://{id}');
    expect(service.capabilities()).toEqual({ logging: {} });
  });

  it('computes them once per registry version', () => {
    const { registry, service } = serviceWith();
    registry.registerTool({ name: 't' }, noop);
    const first = service.capabilities();
    expect(service.capabilities()).toBe(first);
    registry.registerTool({ name: 'u' }, noop);
    expect(service.capabilities()).not.toBe(first);
    expect(service.capabilities()).toEqual(first);
  });
});

describe('McpDiscoverService.discover', () => {
  it('answers the supported versions, the capabilities and the default cache hints (private, not cacheable)', () => {
    const { service } = serviceWith();
    expect(service.discover()).toEqual({
      supportedVersions: ['2026-07-28', '2025-11-25'],
      capabilities: { logging: {} },
      ttlMs: 0,
      cacheScope: 'private',
    });
  });

  it('adds the instructions and the cache hints configured for discover', () => {
    const { service } = serviceWith({
      instructions: 'Use search first',
      cacheHints: { default: { ttlMs: 5, cacheScope: 'private' }, discover: { ttlMs: 60_000, cacheScope: 'public' } },
    });
    expect(service.discover()).toMatchObject({ instructions: 'Use search first', ttlMs: 60_000, cacheScope: 'public' });
  });

  it('hands out a copy of the versions list, which callers cannot change for the next request', () => {
    const { service } = serviceWith();
    (service.discover().supportedVersions as string[]).push('1999-01-01');
    expect(service.discover().supportedVersions).toEqual(['2026-07-28', '2025-11-25']);
  });
});

describe('McpDiscoverService.discover per caller (scopes, the visibility hook)', () => {
  const auth = { resource: 'http://127.0.0.1:3000/mcp', authorizationServers: ['http://127.0.0.1:4000'] };

  it('shows a caller only the features it may use, privately; the gating capabilities stay server-wide', () => {
    const { registry, service } = serviceWith({ auth });
    registry.registerTool({ name: 'deploy', task: 'optional' }, noop, { scopes: ['deploy:write'] });
    registry.registerPrompt({ name: 'summary' }, noop, { scopes: ['ops:read'] });

    const reader = service.discover(remoteCaller(['ops:read']));
    expect(reader.capabilities).toEqual({ prompts: { listChanged: true }, completions: {}, logging: {} });
    expect(reader.cacheScope).toBe('private');

    const deployer = service.discover(remoteCaller(['deploy:write', 'ops:read']));
    expect(deployer.capabilities).toEqual({
      tools: { listChanged: true },
      extensions: { 'io.modelcontextprotocol/tasks': {} },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    });
    expect(service.capabilities()).toEqual(deployer.capabilities);
  });

  it('applies the visibility hook', () => {
    const { registry, service } = serviceWith({ visibility: (handler) => handler.name !== 'secret' });
    registry.registerTool({ name: 'secret' }, noop);
    expect(service.discover(remoteCaller([])).capabilities).toEqual({ logging: {} });
    expect(service.capabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
  });

  it('answers everyone alike, with the configured hints, when nothing filters', () => {
    const { registry, service } = serviceWith({ cacheHints: { discover: { ttlMs: 60_000, cacheScope: 'public' } } });
    registry.registerTool({ name: 't' }, noop);
    expect(service.discover(remoteCaller([]))).toMatchObject({
      capabilities: { tools: { listChanged: true } },
      ttlMs: 60_000,
      cacheScope: 'public',
    });
  });
});

describe('McpDiscoverService: what the extensions advertise', () => {
  const auth = { resource: 'http://127.0.0.1:3000/mcp', authorizationServers: ['http://127.0.0.1:4000'] };
  const skillsLike: McpExtension = {
    id: 'io.modelcontextprotocol/skills',
    advertise: () => ({ directoryRead: true }),
    requiredCapabilities: () => ['resources'],
  };

  it('advertises them, and keeps the capabilities they require even for a caller who may see nothing of that feature', () => {
    const { registry, service } = serviceWith({ auth }, [skillsLike]);
    registry.registerResource({ uri: 'skill://ops/x/SKILL.md', name: 'x' }, noop, { scopes: ['ops:read'] });
    registry.registerTool({ name: 'open' }, noop);
    const outsider = service.discover(remoteCaller([]));
    expect(outsider.capabilities).toMatchObject({
      extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
      resources: { subscribe: true, listChanged: true },
    });
  });
});
