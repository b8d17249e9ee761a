import { McpDefinitionError } from './mcp-definition.error.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import type { ParamHeaderBinding } from '../protocol/param-header-binding.interface.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * Finds the `x-mcp-header` annotations of a tool's input schema and checks every constraint the spec puts on them
 * (spec 2026-07-28: server/tools, "x-mcp-header"): a token name, unique case-insensitively, only on
 * string/integer/boolean properties, reachable from the root through `properties` only. A violation fails
 * bootstrap, since HTTP clients would drop the tool.
 */
export function checkParamHeaders(where: string, inputSchema: Record<string, unknown>): ParamHeaderBinding[] {
  const bindings: ParamHeaderBinding[] = [];
  const seen = new Set<string>();

  const visit = (schema: unknown, path: string[], reachable: boolean): void => {
    if (Array.isArray(schema)) {
      for (const item of schema) visit(item, path, false);
      return;
    }
    if (!isJsonObject(schema)) return;
    if ('x-mcp-header' in schema) bindings.push(bind(schema, path, reachable));
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === 'properties' && isJsonObject(value)) {
        for (const [property, subschema] of Object.entries(value)) visit(subschema, [...path, property], reachable);
      } else if (
        keyword !== 'x-mcp-header' &&
        keyword !== 'const' &&
        keyword !== 'enum' &&
        keyword !== 'default' &&
        keyword !== 'examples'
      ) {
        visit(value, path, false);
      }
    }
  };

  const bind = (schema: Record<string, unknown>, path: string[], reachable: boolean): ParamHeaderBinding => {
    const name = schema['x-mcp-header'];
    const at = path.length > 0 ? `property "${path.join('.')}"` : 'the schema root';
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new McpDefinitionError(where, `x-mcp-header on ${at} must be a non-empty header token (RFC 9110)`);
    }
    if (!reachable || path.length === 0) {
      throw new McpDefinitionError(
        where,
        `x-mcp-header "${name}" must sit on a property reached through "properties" only`,
      );
    }
    const type = schema.type;
    if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
      throw new McpDefinitionError(
        where,
        `x-mcp-header "${name}" is only allowed on string, integer or boolean properties`,
      );
    }
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw new McpDefinitionError(where, `x-mcp-header "${name}" is declared twice`);
    seen.add(lower);
    return { name, header: `mcp-param-${lower}`, path, type: type as ParamHeaderBinding['type'] };
  };

  visit(inputSchema, [], true);
  return bindings;
}
