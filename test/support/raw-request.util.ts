import { request as httpRequest } from 'node:http';

/**
 * Hand-made 2026-07-28 POSTs for transport tests: a correct request by default (headers mirroring the body, the
 * `_meta` envelope), which a test then breaks in exactly one way.
 */

export const PROTOCOL_VERSION = '2026-07-28';

/** `params._meta` of a well-formed 2026-07-28 request. */
export function requestMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-e2e', version: '1.0.0' },
    ...extra,
  };
}

/** The body field `Mcp-Name` mirrors, per method. */
const NAME_FIELD: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The standard headers of a request to `method` (`Mcp-Name` taken from `params` for the three methods that need it). */
export function mcpHeaders(method: string, params: Record<string, unknown> = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
  };
  const field = NAME_FIELD[method];
  if (field && typeof params[field] === 'string') headers['mcp-name'] = params[field] as string;
  return headers;
}

export interface RawPost {
  method: string;
  /** Request params without `_meta`; `_meta` is added unless `meta` says otherwise. */
  params?: Record<string, unknown>;
  /** `false` sends no `_meta`; an object replaces the default `_meta` entirely. */
  meta?: Record<string, unknown> | false;
  /** The JSON-RPC id; `null` sends a notification (no `id`). Default: a fresh integer. */
  id?: string | number | null;
  /** Header overrides; `undefined` removes a header. */
  headers?: Record<string, string | undefined>;
  /** Sends this exact body instead of building one. */
  rawBody?: string;
  /**
   * Connects to this Unix socket instead of the URL's host and port (the URL still gives the Host header): a relay
   * into a network namespace the test process is not in (test/server/security-host-origin.e2e-spec.ts).
   */
  socketPath?: string;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  json: unknown;
  /** The id the request carried (read back from `rawBody` when one was given). */
  sentId?: string | number;
}

let nextId = 1000;

/** The id of a raw body, when it is a JSON object with a string or integer id. */
function idOf(rawBody: string): string | number | undefined {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    const id = (parsed as { id?: unknown } | null)?.id;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** POSTs one hand-made message to the MCP endpoint and reads the whole answer. */
export async function mcpPost(url: URL, call: RawPost): Promise<RawResponse> {
  const id = call.id === undefined ? nextId++ : call.id;
  const params: Record<string, unknown> = { ...(call.params ?? {}) };
  if (call.meta !== false) params._meta = call.meta ?? requestMeta();
  const message: Record<string, unknown> = { jsonrpc: '2.0', method: call.method, params };
  if (id !== null) message.id = id;

  const headers: Record<string, string> = mcpHeaders(call.method, call.params);
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const response = await fetch(url, { method: 'POST', headers, body: call.rawBody ?? JSON.stringify(message) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    headers: response.headers,
    text,
    json,
    sentId: call.rawBody === undefined ? (id ?? undefined) : idOf(call.rawBody),
  };
}

/**
 * `=?base64?…?=`, the header encoding of values that are not plain header text (spec 2026-07-28:
 * basic/transports/streamable-http, "Value Encoding").
 */
export function base64Sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * POSTs through `node:http` rather than `fetch`, for headers `fetch` will not let a caller set (`Host`).
 * Same defaults and result as `mcpPost`.
 */
export function mcpPostViaHttp(url: URL, call: RawPost): Promise<RawResponse> {
  const id = call.id === undefined ? nextId++ : call.id;
  const params: Record<string, unknown> = { ...(call.params ?? {}) };
  if (call.meta !== false) params._meta = call.meta ?? requestMeta();
  const message: Record<string, unknown> = { jsonrpc: '2.0', method: call.method, params };
  if (id !== null) message.id = id;
  const body = call.rawBody ?? JSON.stringify(message);
  const headers: Record<string, string> = {
    ...mcpHeaders(call.method, call.params),
    'content-length': String(Buffer.byteLength(body)),
  };
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: 'POST', headers, ...(call.socketPath !== undefined && { socketPath: call.socketPath }) },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text.length > 0 ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          resolve({
            status: incoming.statusCode ?? 0,
            headers: responseHeaders,
            text,
            json,
            sentId: call.rawBody === undefined ? (id ?? undefined) : idOf(call.rawBody),
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
