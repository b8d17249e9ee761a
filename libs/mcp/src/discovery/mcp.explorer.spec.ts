import { Controller, Injectable, Scope, type LoggerService, type Provider, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { McpHandlerFactory } from '../context/mcp-handler.factory.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpPrompt } from '../decorators/mcp-prompt.decorator.js';
import { McpResourceTemplate } from '../decorators/mcp-resource-template.decorator.js';
import { McpResource } from '../decorators/mcp-resource.decorator.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpScopes } from '../decorators/mcp-scopes.decorator.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { McpExplorer } from './mcp.explorer.js';
import { McpRegistry } from './mcp.registry.js';

@Injectable()
class Catalog {
  @McpTool({ description: 'Finds items' })
  search() {}

  @McpTool({ name: 'catalog.count' })
  count() {}

  @McpPrompt()
  brief() {}

  @McpResource({ uri: 'docs://readme' })
  readme() {}

  @McpResourceTemplate({ uriTemplate: 'users://{id}', complete: { id: 'suggestIds' } })
  user() {}

  suggestIds() {
    return ['1'];
  }
}

@Controller()
class Reports {
  @McpTool()
  report() {}
}

@Injectable({ scope: Scope.REQUEST })
class PerRequest {
  @McpTool()
  whoAmI() {}
}

@Injectable()
class OtherCatalog {
  @McpTool({ name: 'search' })
  find() {}
}

@Injectable()
class TwoKinds {
  @McpTool()
  @McpPrompt()
  both() {}
}

@Injectable()
class BadName {
  @McpTool({ name: 'not valid' })
  run() {}
}

/** Keeps what the explorer logs. */
@McpScopes('team:ops')
@Injectable()
class Scoped {
  @McpScopes('deploy:write')
  @McpTool()
  deploy() {}

  @McpPrompt()
  runbook() {}

  @McpResource({ uri: 'docs://ops' })
  ops() {}

  @McpScopes('logs:read')
  @McpResourceTemplate({ uriTemplate: 'logs://{day}' })
  logs() {}
}

@Injectable()
class BadScope {
  @McpScopes('two words')
  @McpTool()
  run() {}
}

class Recorder implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(String(message));
  }
  error(): void {}
  warn(): void {}
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Bootstraps the explorer over `providers` (no HTTP server); resolves with the registry, or rejects like app.init(). */
async function explore(
  providers: Provider[],
  controllers: Type[] = [],
): Promise<{ registry: McpRegistry; logged: string[] }> {
  const recorder = new Recorder();
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    controllers,
    providers: [
      { provide: McpResolvedOptions, useValue: new McpResolvedOptions({ name: 'srv', version: '1' }) },
      McpRegistry,
      McpMetadataAccessor,
      McpHandlerFactory,
      McpExplorer,
      ...providers,
    ],
  })
    .setLogger(recorder)
    .compile();
  closers.push(() => moduleRef.close());
  await moduleRef.init();
  return { registry: moduleRef.get(McpRegistry), logged: recorder.lines };
}

const namesOf = (registry: McpRegistry) => ({
  tools: registry.listTools().map((entry) => entry.definition.name),
  prompts: registry.listPrompts().map((entry) => entry.definition.name),
  resources: registry.listResources().map((entry) => entry.definition.uri),
  templates: registry.listResourceTemplates().map((entry) => entry.definition.uriTemplate),
});

describe('McpExplorer', () => {
  it('registers the decorated methods of providers and controllers at bootstrap, named after the method unless named', async () => {
    const { registry, logged } = await explore([Catalog], [Reports]);
    expect(namesOf(registry)).toEqual({
      tools: ['catalog.count', 'report', 'search'],
      prompts: ['brief'],
      resources: ['docs://readme'],
      templates: ['users://{id}'],
    });
    expect(registry.getTool('search')?.definition.description).toBe('Finds items');
    expect(registry.getResource('docs://readme')?.definition.name).toBe('readme');
    expect(await registry.getResourceTemplate('users://{id}')!.completions.get('id')!('', { arguments: {} })).toEqual([
      '1',
    ]);
    expect(logged).toContain('Mapped 3 tools, 1 prompts, 1 resources, 1 resource templates');
  });

  it('ends discovery: changes made after bootstrap are published', async () => {
    const { registry } = await explore([Catalog]);
    const changes: string[] = [];
    registry.changes$.subscribe((kind) => changes.push(kind));
    registry.registerTool({ name: 'late' }, () => 'ok');
    expect(changes).toEqual(['tools']);
  });

  it('explores request-scoped providers too (their handlers resolve the host per call)', async () => {
    const { registry } = await explore([PerRequest]);
    expect(namesOf(registry).tools).toEqual(['whoAmI']);
  });

  it('skips wrappers without an object instance, and explores an instance reached through an alias once', async () => {
    const { registry } = await explore([
      Catalog,
      { provide: 'NOTHING', useValue: null },
      { provide: 'UNDEFINED', useFactory: () => undefined },
      { provide: 'NUMBER', useValue: 42 },
      { provide: 'ALIAS', useExisting: Catalog },
    ]);
    expect(namesOf(registry).tools).toEqual(['catalog.count', 'search']);
  });

  it('fails bootstrap with an McpDefinitionError when two methods declare the same tool name', async () => {
    const failure = explore([Catalog, OtherCatalog]);
    await expect(failure).rejects.toBeInstanceOf(McpDefinitionError);
    await expect(failure).rejects.toThrow(
      /OtherCatalog\.find: .*duplicate tool "search": each tool must be registered once$/,
    );
  });

  it('fails bootstrap when a method is of two kinds, or a declaration is invalid, naming the class and method', async () => {
    await expect(explore([TwoKinds])).rejects.toThrow(
      new McpDefinitionError(
        'TwoKinds.both',
        'a method can be only one of tool, prompt, resource, resource template or app view',
      ),
    );
    await expect(explore([BadName])).rejects.toThrow(
      'nest-mcp: BadName.run: tool name "not valid" must be 1-128 characters of A-Z a-z 0-9 _ - .',
    );
  });

  it('records on each entry its summary: kind, name, URI and every scope (class first, then method)', async () => {
    const { registry } = await explore([Scoped, Catalog]);
    expect(registry.getTool('deploy')?.summary).toEqual({
      kind: 'tool',
      name: 'deploy',
      scopes: ['team:ops', 'deploy:write'],
    });
    expect(registry.getPrompt('runbook')?.summary).toEqual({ kind: 'prompt', name: 'runbook', scopes: ['team:ops'] });
    expect(registry.getResource('docs://ops')?.summary).toEqual({
      kind: 'resource',
      name: 'ops',
      uri: 'docs://ops',
      scopes: ['team:ops'],
    });
    expect(registry.getResourceTemplate('logs://{day}')?.summary).toEqual({
      kind: 'resourceTemplate',
      name: 'logs',
      uri: 'logs://{day}',
      scopes: ['team:ops', 'logs:read'],
    });
    expect(registry.getTool('search')?.summary.scopes).toEqual([]);
  });

  it('fails bootstrap on a scope that is not an OAuth scope token, naming the method', async () => {
    await expect(explore([BadScope])).rejects.toThrow(
      /^nest-mcp: BadScope\.run: scope "two words" is not an OAuth scope token/,
    );
  });
});
