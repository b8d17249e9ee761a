import { Reflector } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { McpPrompt } from '../decorators/mcp-prompt.decorator.js';
import { McpResourceTemplate } from '../decorators/mcp-resource-template.decorator.js';
import { McpResource } from '../decorators/mcp-resource.decorator.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpScopes } from '../decorators/mcp-scopes.decorator.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';

class Catalog {
  @McpTool({ name: 'search', description: 'Finds items' })
  search() {}

  @McpTool()
  bare() {}

  @McpPrompt({ arguments: [{ name: 'topic', required: true }] })
  brief() {}

  @McpResource({ uri: 'docs://readme' })
  readme() {}

  @McpResourceTemplate({ uriTemplate: 'users://{id}' })
  user() {}

  plain() {}
}

type Method = (...args: unknown[]) => unknown;
const accessor = new McpMetadataAccessor(new Reflector());
const kindsOf = (method: Method) => [
  accessor.getToolOptions(method),
  accessor.getPromptOptions(method),
  accessor.getResourceOptions(method),
  accessor.getResourceTemplateOptions(method),
];
const { prototype } = Catalog;

describe('McpMetadataAccessor', () => {
  it('reads back the options each decorator stored, and only under its own kind', () => {
    expect(kindsOf(prototype.search as Method)).toEqual([
      { name: 'search', description: 'Finds items' },
      undefined,
      undefined,
      undefined,
    ]);
    expect(kindsOf(prototype.brief as Method)).toEqual([
      undefined,
      { arguments: [{ name: 'topic', required: true }] },
      undefined,
      undefined,
    ]);
    expect(kindsOf(prototype.readme as Method)).toEqual([undefined, undefined, { uri: 'docs://readme' }, undefined]);
    expect(kindsOf(prototype.user as Method)).toEqual([
      undefined,
      undefined,
      undefined,
      { uriTemplate: 'users://{id}' },
    ]);
  });

  it('tells a decorator without options (an empty object: the method is a tool) from an undecorated method (undefined)', () => {
    expect(accessor.getToolOptions(prototype.bare as Method)).toEqual({});
    expect(kindsOf(prototype.plain as Method)).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('McpMetadataAccessor.getScopes', () => {
  @McpScopes('team:ops')
  class Deploy {
    @McpScopes('deploy:write', 'deploy:read')
    @McpTool()
    deploy() {}

    @McpTool()
    status() {}
  }

  class Open {
    @McpTool()
    ping() {}
  }

  it('combines the class scopes (first) with the method scopes: all are required', () => {
    expect(accessor.getScopes(Deploy.prototype.deploy as Method, Deploy)).toEqual([
      'team:ops',
      'deploy:write',
      'deploy:read',
    ]);
    expect(accessor.getScopes(Deploy.prototype.status as Method, Deploy)).toEqual(['team:ops']);
    expect(accessor.getScopes(Open.prototype.ping as Method, Open)).toEqual([]);
  });

  it('@McpScopes() without a scope is refused where it is written', () => {
    expect(() => McpScopes()).toThrow(/at least one scope/);
  });
});
