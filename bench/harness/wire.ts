/**
 * Hand-made 2026-07-28 requests, as the e2e tests send them (test/support/raw-request.util.ts): the standard
 * headers mirroring the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) and the `_meta` envelope.
 */

export const PROTOCOL_VERSION = '2026-07-28';

export interface WireRequest {
  headers: Record<string, string>;
  body: string;
}

export function requestMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'nest-mcp-bench', version: '1.0.0' },
    ...extra,
  };
}

function headers(method: string, name?: string): Record<string, string> {
  const result: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
  };
  if (name !== undefined) result['mcp-name'] = name;
  return result;
}

function request(id: string | number, method: string, params: Record<string, unknown>, name?: string): WireRequest {
  return { headers: headers(method, name), body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) };
}

/** `tools/call`; `meta` adds to the envelope (e.g. a progress token), `extra` to the params (MRTR retries). */
export function toolCall(
  id: string | number,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): WireRequest {
  return request(id, 'tools/call', { name, arguments: args, ...extra, _meta: requestMeta(meta) }, name);
}

export function toolsList(id: string | number, cursor?: string): WireRequest {
  return request(id, 'tools/list', { ...(cursor === undefined ? {} : { cursor }), _meta: requestMeta() });
}

export function subscriptionsListen(id: string | number): WireRequest {
  return request(id, 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: requestMeta() });
}
