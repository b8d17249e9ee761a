import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool } from 'nest-mcp';

/** Tools whose input schemas exercise JSON Schema 2020-12 and `x-mcp-header`. */
@Injectable()
export class SchemaTools {
  @McpTool({
    name: 'json_schema_2020_12_tool',
    description: 'Has a JSON Schema 2020-12 input with $defs, anchors, composition and conditionals',
    input: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'address',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
          required: ['street', 'city'],
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contact: {
          anyOf: [
            { type: 'string', format: 'email' },
            { type: 'string', pattern: '^\\+?[0-9 ]+$' },
          ],
        },
        kind: { type: 'string', enum: ['person', 'company'] },
        vatId: { type: 'string' },
      },
      allOf: [{ required: ['name'] }, { anyOf: [{ required: ['contact'] }, { required: ['address'] }] }],
      if: { properties: { kind: { const: 'company' } }, required: ['kind'] },
      then: { required: ['vatId'] },
      else: {},
      additionalProperties: false,
    },
  })
  jsonSchema(@McpArgs() args: Record<string, unknown>) {
    return `Received ${Object.keys(args).sort().join(', ') || 'nothing'}`;
  }

  @McpTool({
    name: 'test_header_params',
    description: 'Mirrors its region argument into the Mcp-Param-Region header',
    input: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
      required: ['query'],
    },
  })
  headerParams(@McpArgs() args: { region?: string; query: string }) {
    return `Searched ${args.region ?? 'everywhere'} for ${args.query}`;
  }
}
