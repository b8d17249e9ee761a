import { McpHeaders } from '../protocol/meta-keys.constants.js';
import { encodeHeaderValue } from './mcp-headers.util.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * @internal The `Mcp-Param-*` headers of a `tools/call`: every argument whose property in the tool's `inputSchema`
 * carries `x-mcp-header` (reached through `properties` only) is mirrored, as a 2026-07-28 HTTP client must.
 */
export function paramHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  const visit = (schema: unknown, value: unknown): void => {
    if (!isObject(schema) || !isObject(schema.properties) || !isObject(value)) return;
    for (const [property, subschema] of Object.entries(schema.properties)) {
      const argument = value[property];
      if (isObject(subschema) && typeof subschema['x-mcp-header'] === 'string' && argument !== undefined && argument !== null) {
        const text = typeof argument === 'string' ? argument : typeof argument === 'object' ? JSON.stringify(argument) : String(argument);
        headers[`${McpHeaders.paramPrefix}${subschema['x-mcp-header'].toLowerCase()}`] = encodeHeaderValue(text);
      }
      visit(subschema, argument);
    }
  };
  visit(inputSchema, args);
  return headers;
}
