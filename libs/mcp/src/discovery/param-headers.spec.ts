import { describe, expect, it } from 'vitest';
import { McpDefinitionError } from './mcp-definition.error.js';
import { checkParamHeaders } from './param-headers.js';

const objectOf = (properties: Record<string, unknown>) => ({ type: 'object', properties });

/** The bootstrap error a schema gets. */
function refusalOf(inputSchema: Record<string, unknown>): McpDefinitionError {
  try {
    checkParamHeaders('Deploys.run', inputSchema);
  } catch (error) {
    expect(error).toBeInstanceOf(McpDefinitionError);
    return error as McpDefinitionError;
  }
  throw new Error('the schema was accepted');
}

describe('checkParamHeaders (x-mcp-header annotations of a tool input schema)', () => {
  it('binds each annotated property to its lower-case Mcp-Param-* header, with its path and type', () => {
    const schema = objectOf({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      note: { type: 'string' },
      target: objectOf({
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
      }),
    });
    expect(checkParamHeaders('Deploys.run', schema)).toEqual([
      { name: 'Region', header: 'mcp-param-region', path: ['region'], type: 'string' },
      { name: 'Count', header: 'mcp-param-count', path: ['target', 'count'], type: 'integer' },
      { name: 'Dry-Run', header: 'mcp-param-dry-run', path: ['target', 'dry'], type: 'boolean' },
    ]);
  });

  it('finds nothing in a schema without annotations, nor in values (const, enum, default, examples) or a property named x-mcp-header', () => {
    expect(checkParamHeaders('Deploys.run', { type: 'object', additionalProperties: false })).toEqual([]);
    const annotationLike = { 'x-mcp-header': 'NotAnAnnotation' };
    const schema = objectOf({
      options: {
        type: 'object',
        default: annotationLike,
        examples: [annotationLike],
        const: annotationLike,
        enum: [annotationLike],
      },
      'x-mcp-header': { type: 'string' },
    });
    expect(checkParamHeaders('Deploys.run', schema)).toEqual([]);
  });

  it('fails with an McpDefinitionError that names the declaration and the annotation', () => {
    const error = refusalOf(objectOf({ ratio: { type: 'number', 'x-mcp-header': 'Ratio' } }));
    expect(error.message).toBe(
      'nest-mcp: Deploys.run: x-mcp-header "Ratio" is only allowed on string, integer or boolean properties',
    );
  });

  it.each([
    [
      'a name that is not an HTTP token',
      objectOf({ p: { type: 'string', 'x-mcp-header': 'Two words' } }),
      'x-mcp-header on property "p" must be a non-empty header token (RFC 9110)',
    ],
    [
      'a name that is not a string',
      objectOf({ p: { type: 'string', 'x-mcp-header': true } }),
      'x-mcp-header on property "p" must be a non-empty header token (RFC 9110)',
    ],
    [
      'an annotation on the schema root',
      { type: 'object', 'x-mcp-header': 'Root' },
      'x-mcp-header "Root" must sit on a property reached through "properties" only',
    ],
    [
      'an annotation under items',
      objectOf({ tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } } }),
      'x-mcp-header "Tag" must sit on a property reached through "properties" only',
    ],
    [
      'a property below a non-properties keyword (items → properties)',
      objectOf({ list: { type: 'array', items: objectOf({ id: { type: 'string', 'x-mcp-header': 'Id' } }) } }),
      'x-mcp-header "Id" must sit on a property reached through "properties" only',
    ],
    [
      'a nullable type (a type array)',
      objectOf({ p: { type: ['string', 'null'], 'x-mcp-header': 'P' } }),
      'x-mcp-header "P" is only allowed on string, integer or boolean properties',
    ],
    [
      'the same header twice, in another case',
      objectOf({
        a: { type: 'string', 'x-mcp-header': 'Zone' },
        b: objectOf({ c: { type: 'string', 'x-mcp-header': 'ZONE' } }),
      }),
      'x-mcp-header "ZONE" is declared twice',
    ],
  ])('refuses %s', (_label, schema, problem) => {
    expect(refusalOf(schema).message).toBe(`nest-mcp: Deploys.run: ${problem}`);
  });
});
