import { describe, expect, it } from 'vitest';
import type { McpToolContext } from '../context/mcp-tool.context.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { McpRegistry, type McpListKind } from './mcp.registry.js';

const noop = () => 'ok';

/** A registry after bootstrap, and the change events it publishes from now on. */
function discovered(): { registry: McpRegistry; changes: McpListKind[] } {
  const registry = new McpRegistry();
  registry.completeDiscovery();
  const changes: McpListKind[] = [];
  registry.changes$.subscribe((kind) => changes.push(kind));
  return { registry, changes };
}

describe('McpRegistry', () => {
  it('lists tools and prompts by name and resources by URI, in code-point order (the same on every machine)', () => {
    const registry = new McpRegistry();
    for (const name of ['beta', 'Zeta', 'alpha', 'Alpha']) registry.registerTool({ name }, noop);
    for (const name of ['b', 'a']) registry.registerPrompt({ name }, noop);
    for (const uri of ['docs://é', 'docs://z', 'docs://A']) registry.registerResource({ uri }, noop);
    expect(registry.listTools().map((entry) => entry.definition.name)).toEqual(['Alpha', 'Zeta', 'alpha', 'beta']);
    expect(registry.listPrompts().map((entry) => entry.definition.name)).toEqual(['a', 'b']);
    expect(registry.listResources().map((entry) => entry.definition.uri)).toEqual(['docs://A', 'docs://z', 'docs://é']);
  });

  it('lists resource templates most specific first: the order URIs are matched in', () => {
    const registry = new McpRegistry();
    for (const uriTemplate of ['files://{+path}', 'files://{dir}/{name}', 'files://config/{name}'])
      registry.registerResourceTemplate({ uriTemplate }, noop);
    const order = registry.listResourceTemplates().map((entry) => entry.definition.uriTemplate);
    expect(order).toEqual(['files://config/{name}', 'files://{dir}/{name}', 'files://{+path}']);
    expect(
      registry.listResourceTemplates().find((entry) => entry.template.match('files://config/app.json'))?.definition
        .uriTemplate,
    ).toBe('files://config/{name}');
  });

  it('returns the same list until it changes (list pages are cached on that identity), and counts every change in version', () => {
    const registry = new McpRegistry();
    registry.registerTool({ name: 'a' }, noop);
    const before = registry.listTools();
    const version = registry.version;
    expect(registry.listTools()).toBe(before);
    registry.registerPrompt({ name: 'p' }, noop);
    expect(registry.listTools()).toBe(before);
    registry.registerTool({ name: 'b' }, noop);
    expect(registry.listTools()).not.toBe(before);
    expect(before.map((entry) => entry.definition.name)).toEqual(['a']);
    expect(registry.version).toBe(version + 2);
  });

  it('adds and removes at run time; removing what is not there answers false and changes nothing', () => {
    const registry = new McpRegistry();
    registry.registerTool({ name: 'ping' }, noop);
    registry.registerResource({ uri: 'docs://readme' }, noop);
    registry.registerResourceTemplate({ uriTemplate: 'users://{id}' }, noop);
    expect(registry.getResource('docs://readme')?.definition.name).toBe('docs://readme');
    expect(registry.getResourceTemplate('users://{id}')?.definition.name).toBe('users://{id}');
    const version = registry.version;
    expect([registry.removeTool('ping'), registry.removeTool('ping'), registry.removePrompt('none')]).toEqual([
      true,
      false,
      false,
    ]);
    expect([registry.removeResource('docs://readme'), registry.removeResourceTemplate('users://{id}')]).toEqual([
      true,
      true,
    ]);
    expect(registry.version).toBe(version + 3);
    expect([registry.getTool('ping'), registry.listResources(), registry.listResourceTemplates()]).toEqual([
      undefined,
      [],
      [],
    ]);
  });

  it('runs a runtime handler as a plain function with the input and the context', async () => {
    const registry = new McpRegistry();
    registry.registerTool<{ n: number }>(
      { name: 'double', input: { type: 'object', properties: { n: { type: 'number' } } } },
      ({ n }, context) => ({
        doubled: n * 2,
        context,
      }),
    );
    const context = { marker: true } as unknown as McpToolContext;
    expect(await registry.getTool('double')!.handler.invoke({ n: 21 }, context)).toEqual({ doubled: 42, context });
  });

  it('refuses a second entry under the same name, URI or template, and keeps the first', () => {
    const registry = new McpRegistry();
    const first = () => 'first';
    registry.registerTool({ name: 'dup' }, first);
    expect(() => registry.registerTool({ name: 'dup' }, noop)).toThrow(
      'nest-mcp: duplicate tool "dup": each tool must be registered once',
    );
    registry.registerResource({ uri: 'docs://x' }, noop);
    expect(() => registry.registerResource({ uri: 'docs://x', name: 'other' }, noop)).toThrow(
      'duplicate resource "docs://x"',
    );
    registry.registerResourceTemplate({ uriTemplate: 'u://{id}' }, noop);
    expect(() => registry.registerResourceTemplate({ uriTemplate: 'u://{id}' }, noop)).toThrow(
      'duplicate resource template "u://{id}"',
    );
    registry.registerPrompt({ name: 'p' }, noop);
    expect(() => registry.registerPrompt({ name: 'p' }, noop)).toThrow('duplicate prompt "p"');
    expect(registry.listTools()).toHaveLength(1);
  });

  it('publishes no change while the explorer fills it, then one event per change', () => {
    const registry = new McpRegistry();
    const changes: McpListKind[] = [];
    registry.changes$.subscribe((kind) => changes.push(kind));
    registry.registerTool({ name: 'at-bootstrap' }, noop);
    expect(changes).toEqual([]);

    registry.completeDiscovery();
    registry.registerTool({ name: 'later' }, noop);
    registry.registerPrompt({ name: 'p' }, noop);
    registry.registerResource({ uri: 'docs://r' }, noop);
    registry.registerResourceTemplate({ uriTemplate: 'docs://{id}' }, noop);
    registry.removeTool('at-bootstrap');
    registry.removeTool('at-bootstrap');
    expect(changes).toEqual(['tools', 'prompts', 'resources', 'resourceTemplates', 'tools']);
  });

  it('changes nothing and publishes nothing when a registration is refused', () => {
    const { registry, changes } = discovered();
    const version = registry.version;
    expect(() => registry.registerTool({ name: 'bad name' }, noop)).toThrow(McpDefinitionError);
    expect(() => registry.registerTool({ name: 'runtime', input: { type: 'array' } }, noop)).toThrow(
      /runtime tool "runtime"/,
    );
    expect([registry.listTools(), registry.version, changes]).toEqual([[], version, []]);
  });
});
