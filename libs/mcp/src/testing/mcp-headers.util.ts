import type { JsonRpcRequest } from '../protocol/json-rpc.interface.js';
import { McpHeaders, MetaKeys } from '../protocol/meta-keys.constants.js';

/** Visible ASCII without leading or trailing spaces: sent as is; anything else goes in the base64 sentinel. */
const PLAIN_HEADER_VALUE = /^(?:[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?)?$/;

/** A header value as a 2026 client sends it: plain, or `=?base64?…?=` when it is not plain header text. */
export function encodeHeaderValue(value: string): string {
  return PLAIN_HEADER_VALUE.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * @internal The headers a 2026-07-28 client sends with `message` (Content-Type, Accept and the mirrored MCP headers);
 * `nameField` is the `params` field its `Mcp-Name` mirrors, if any.
 */
export function standardHeaders(message: JsonRpcRequest, nameField: string | undefined): Record<string, string> {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    [McpHeaders.protocolVersion]: String(meta?.[MetaKeys.protocolVersion]),
    [McpHeaders.method]: message.method,
  };
  const value = nameField && message.params?.[nameField];
  if (typeof value === 'string') headers[McpHeaders.name] = encodeHeaderValue(value);
  return headers;
}

/** @internal Header names lower-cased, as Node exposes them to guards. */
export function lowerCaseKeys(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
