import { describe, expect, it } from 'vitest';
import { resolvedOptions } from '../../../../test/support/resolved-options.factory.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { McpDiscoverService } from './discover.service.js';

function serviceWith(options: Partial<McpModuleOptions> = {}): { registry: McpRegistry; service: McpDiscoverService } {
  const registry = new McpRegistry();
  return { registry, service: new McpDiscoverService(registry, resolvedOptions(options)) };
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
    expect(service.capabilities()).toEqual({ tools: { listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} });
  });

  it('advertises resources (with subscribe) for a resource template alone, and withdraws it when the last one goes', () => {
    const { registry, service } = serviceWith();
    registry.registerResourceTemplate({ uriTemplate: 'users://{id}' }, noop);
    expect(service.capabilities()).toEqual({ resources: { subscribe: true, listChanged: true }, completions: {}, logging: {} });
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
    const { service } = serviceWith({ instructions: 'Use search first', cacheHints: { default: { ttlMs: 5, cacheScope: 'private' }, discover: { ttlMs: 60_000, cacheScope: 'public' } } });
    expect(service.discover()).toMatchObject({ instructions: 'Use search first', ttlMs: 60_000, cacheScope: 'public' });
  });

  it('hands out a copy of the versions list, which callers cannot change for the next request', () => {
    const { service } = serviceWith();
    (service.discover().supportedVersions as string[]).push('1999-01-01');
    expect(service.discover().supportedVersions).toEqual(['2026-07-28', '2025-11-25']);
  });
});
