import { describe, expect, it } from 'vitest';
import type { McpHandler } from '../context/mcp-handler.interface.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { McpEntryFactory } from './mcp-entry.factory.js';

const handler: McpHandler = { invoke: async () => 'ok' };
const WHERE = 'Catalog.method';

/** The message of the McpDefinitionError a declaration gets. */
function problemOf(declare: () => unknown): string {
  try {
    declare();
  } catch (error) {
    expect(error).toBeInstanceOf(McpDefinitionError);
    return (error as Error).message.replace(`nest-mcp: ${WHERE}: `, '');
  }
  throw new Error('the declaration was accepted');
}

describe('McpEntryFactory.tool', () => {
  it('builds the definition from what was declared only, and keeps the handler', () => {
    const entry = McpEntryFactory.tool(
      WHERE,
      { name: 'search', description: 'Finds items', annotations: { readOnlyHint: true } },
      handler,
    );
    expect(entry.definition).toEqual({
      name: 'search',
      description: 'Finds items',
      inputSchema: { type: 'object', additionalProperties: false },
      annotations: { readOnlyHint: true },
    });
    expect(Object.keys(entry.definition)).not.toContain('title');
    expect([entry.input, entry.output, entry.paramHeaders, entry.handler]).toEqual([undefined, undefined, [], handler]);
  });

  it('compiles the input and output schemas into validators, and binds the x-mcp-header arguments', async () => {
    const input = {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
      required: ['region'],
    };
    const entry = McpEntryFactory.tool(
      WHERE,
      { name: 'deploy', input, output: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      handler,
    );
    expect(entry.definition.inputSchema).toMatchObject(input);
    expect(entry.definition.outputSchema).toMatchObject({ type: 'object' });
    expect(await entry.input!.validate({ region: 'eu' })).toMatchObject({ valid: true, value: { region: 'eu' } });
    expect(await entry.input!.validate({})).toMatchObject({ valid: false });
    expect(entry.paramHeaders).toEqual([
      { name: 'Region', header: 'mcp-param-region', path: ['region'], type: 'string' },
    ]);
  });

  it.each([
    ['', 'tool name "" must be 1-128 characters of A-Z a-z 0-9 _ - .'],
    ['two words', 'tool name "two words" must be 1-128 characters of A-Z a-z 0-9 _ - .'],
    ['x'.repeat(129), `tool name "${'x'.repeat(129)}" must be 1-128 characters of A-Z a-z 0-9 _ - .`],
  ])('refuses the tool name %j', (name, problem) => {
    expect(problemOf(() => McpEntryFactory.tool(WHERE, { name }, handler))).toBe(problem);
  });

  it('accepts names of exactly 128 characters of the allowed set', () => {
    const name = `a.b-c_D9${'x'.repeat(120)}`;
    expect(McpEntryFactory.tool(WHERE, { name }, handler).definition.name).toBe(name);
  });

  it('turns a schema that cannot be used into an McpDefinitionError naming the declaration', () => {
    expect(problemOf(() => McpEntryFactory.tool(WHERE, { name: 'scalar', input: { type: 'string' } }, handler))).toBe(
      `Invalid input schema for tool "scalar" (${WHERE}): the root must be an object schema (type: "object"), got type "string"`,
    );
    expect(problemOf(() => McpEntryFactory.tool(WHERE, { name: 'weird', input: 42 as never }, handler))).toMatch(
      /got a number/,
    );
  });
});

describe('McpEntryFactory.prompt', () => {
  it('lists the arguments without their completion providers, and remembers the required ones', () => {
    const entry = McpEntryFactory.prompt(
      WHERE,
      {
        name: 'brief',
        arguments: [
          { name: 'topic', required: true, complete: () => ['a'] },
          { name: 'tone', description: 'How it sounds' },
        ],
      },
      handler,
    );
    expect(entry.definition).toEqual({
      name: 'brief',
      arguments: [
        { name: 'topic', required: true },
        { name: 'tone', description: 'How it sounds' },
      ],
    });
    expect(entry.requiredArguments).toEqual(['topic']);
    expect([...entry.completions.keys()]).toEqual(['topic']);
  });

  it('binds a completion provider given by method name to its host', async () => {
    class Host {
      readonly cities = ['Paris', 'Perth'];
      suggest(value: string) {
        return this.cities.filter((city) => city.startsWith(value));
      }
    }
    const entry = McpEntryFactory.prompt(
      WHERE,
      { name: 'trip', arguments: [{ name: 'city', complete: 'suggest' }] },
      handler,
      new Host(),
    );
    expect(await entry.completions.get('city')!('Pe', { arguments: {} })).toEqual(['Perth']);
  });

  it.each([
    [{ name: '' }, 'prompt name must not be empty'],
    [{ name: 'p', arguments: [{ name: '' }] }, 'prompt "p" has an argument without a name'],
    [{ name: 'p', arguments: [{ name: 'a' }, { name: 'a' }] }, 'prompt "p" declares argument "a" twice'],
    [
      { name: 'p', arguments: [{ name: 'a', complete: 'missing' }] },
      'completion provider "missing" is not a method of Object',
    ],
  ])('refuses %j', (options, problem) => {
    expect(problemOf(() => McpEntryFactory.prompt(WHERE, options, handler, {}))).toBe(problem);
  });

  it('refuses a completion provider by name where there is no host (runtime registration)', () => {
    const declare = () =>
      McpEntryFactory.prompt(WHERE, { name: 'p', arguments: [{ name: 'a', complete: 'suggest' }] }, handler);
    expect(problemOf(declare)).toBe('completion provider "suggest" is not a method of the handler');
  });
});

describe('McpEntryFactory.resource', () => {
  it('keeps the declared fields of a static resource', () => {
    const entry = McpEntryFactory.resource(
      WHERE,
      { name: 'readme', uri: 'docs://readme', mimeType: 'text/markdown', size: 0 },
      handler,
    );
    expect(entry.definition).toEqual({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', size: 0 });
  });

  it.each([
    [{ uri: 'readme.md' }, 'resource uri "readme.md" is not an absolute URI (RFC 3986)'],
    [{ uri: 'docs://read me' }, 'resource uri "docs://read me" is not an absolute URI (RFC 3986)'],
    [{ uri: 'docs://a', size: -1 }, 'resource size must be a non-negative integer'],
    [{ uri: 'docs://a', size: 1.5 }, 'resource size must be a non-negative integer'],
  ])('refuses %j', (options, problem) => {
    expect(problemOf(() => McpEntryFactory.resource(WHERE, { name: 'r', ...options }, handler))).toBe(problem);
  });
});

describe('McpEntryFactory.resourceTemplate', () => {
  it('parses the template and binds a completion per variable', async () => {
    const entry = McpEntryFactory.resourceTemplate(
      WHERE,
      { name: 'user', uriTemplate: 'users://{id}/posts/{post}', complete: { id: (value) => [`${value}1`] } },
      handler,
    );
    expect(entry.definition).toEqual({ uriTemplate: 'users://{id}/posts/{post}', name: 'user' });
    expect(entry.template.match('users://7/posts/9')).toEqual({ id: '7', post: '9' });
    expect(await entry.completions.get('id')!('4', { arguments: {} })).toEqual(['41']);
  });

  it('refuses a template that does not parse, and a completion for a name that is not one of its variables', () => {
    expect(
      problemOf(() => McpEntryFactory.resourceTemplate(WHERE, { name: 't', uriTemplate: 'users://{id' }, handler)),
    ).toBe('Invalid URI template "users://{id": unclosed "{" at position 8');
    const stray = () =>
      McpEntryFactory.resourceTemplate(
        WHERE,
        { name: 't', uriTemplate: 'users://{id}', complete: { name: () => [] } },
        handler,
      );
    expect(problemOf(stray)).toBe('completion for "name", which is not a variable of users://{id}');
  });
});
