import { McpHeaders } from '../protocol/meta-keys.constants.js';
import { encodeHeaderValue } from './mcp-headers.util.js';
import { isJsonObject } from '../protocol/json-object.util.js';

/**
 * @internal The `Mcp-Param-*` headers of a `tools/call`: every argument whose property in the tool's `inputSchema`
 * carries `x-mcp-header` (reached through `properties` only) is mirrored, as a 2026-07-28 HTTP client must.
 */
export function paramHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  const visit = (schema: unknown, value: unknown): void => {
    if (!isJsonObject(schema) || !isJsonObject(schema.properties) || !isJsonObject(value)) return;
    for (const [property, subschema] of Object.entries(schema.properties)) {
      const argument = value[property];
      if (
        isJsonObject(subschema) &&
        typeof subschema['x-mcp-header'] === 'string' &&
        argument !== undefined &&
        argument !== null
      ) {
        const text =
          typeof argument === 'string'
            ? argument
            : typeof argument === 'object'
              ? JSON.stringify(argument)
              : String(argument);
        headers[`${McpHeaders.paramPrefix}${subschema['x-mcp-header'].toLowerCase()}`] = encodeHeaderValue(text);
      }
      visit(subschema, argument);
    }
  };
  visit(inputSchema, args);
  return headers;
}
