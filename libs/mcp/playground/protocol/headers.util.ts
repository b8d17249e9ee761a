import type { JsonRpcRequest } from './wire.types.js';
import { NAME_FIELD, PROTOCOL_VERSION } from './protocol.constants.js';

/** Visible ASCII without leading or trailing spaces: sent as is; anything else in the base64 sentinel. */
const PLAIN_HEADER_VALUE = /^(?:[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?)?$/;

/** A header value as a 2026 client sends it (spec 2026-07-28: basic/transports/streamable-http, "Request Metadata"). */
export function headerValue(value: string): string {
  if (PLAIN_HEADER_VALUE.test(value)) return value;
  const bytes = new TextEncoder().encode(value);
  return `=?base64?${btoa(String.fromCharCode(...bytes))}?=`;
}

/** The headers of a POST: media types, the protocol version and the mirrored method and name. */
export function standardHeaders(message: JsonRpcRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': message.method,
  };
  const field = NAME_FIELD[message.method];
  const value = field ? message.params[field] : undefined;
  if (typeof value === 'string') headers['mcp-name'] = headerValue(value);
  return headers;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `Mcp-Param-*` headers of a `tools/call`: each argument whose property schema carries `x-mcp-header`, found
 * through `properties` (spec 2026-07-28: basic/transports/streamable-http, "x-mcp-header").
 */
export function paramHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  const visit = (schema: unknown, value: unknown): void => {
    if (!isObject(schema) || !isObject(schema.properties) || !isObject(value)) return;
    for (const [property, subschema] of Object.entries(schema.properties)) {
      const argument = value[property];
      if (
        isObject(subschema) &&
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
        headers[`mcp-param-${subschema['x-mcp-header'].toLowerCase()}`] = headerValue(text);
      }
      visit(subschema, argument);
    }
  };
  visit(inputSchema, args);
  return headers;
}
