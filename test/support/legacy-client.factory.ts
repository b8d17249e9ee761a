import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { IncrementalSseReader } from './sse-stream.reader.js';
import {
  assertValidLegacyServerMessage,
  legacyRecordingFetch,
  type LegacyRecorder,
} from './legacy-schema.validator.js';
import type { WireMessage } from './wire-response.util.js';

/**
 * The 2025-11-25 ("legacy") side of the endpoint, two ways: the official client in its default `'legacy'`
 * negotiation mode (initialize handshake, session header, GET stream), and hand-made requests for what the client
 * hides (status codes, headers, the order of frames). Every message read here is checked against the 2025-11-25
 * schema.
 */

export const LEGACY_VERSION = '2025-11-25';

/** A connected official client on the legacy wire, with the recorder of everything the server sent it. */
export interface LegacyConnection {
  client: Client;
  transport: StreamableHTTPClientTransport;
  recorder: LegacyRecorder;
  sessionId: string;
}

/**
 * Connects the official client without any version negotiation option (its default is `'legacy'`), and checks that
 * the connection really runs on 2025-11-25. `setup` registers handlers before the handshake.
 */
export async function connectLegacyClient(
  url: URL,
  options: { capabilities?: Record<string, unknown>; setup?: (client: Client) => void; recorder?: LegacyRecorder } = {},
): Promise<LegacyConnection> {
  const recorder = options.recorder ?? legacyRecordingFetch();
  const client = new Client({ name: 'legacy-e2e', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  const transport = new StreamableHTTPClientTransport(url, { fetch: recorder.fetch });
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe(LEGACY_VERSION);
  expect(client.getProtocolEra()).toBe('legacy');
  expect(transport.sessionId).toBeTypeOf('string');
  return { client, transport, recorder, sessionId: transport.sessionId! };
}

/** A raw exchange, read to its end. */
export interface LegacyRawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, or every SSE `data:` frame, parsed and schema-checked. */
  messages: WireMessage[];
}

function parseBody(text: string, contentType: string | null, requestMethod: string | undefined): WireMessage[] {
  if (text.length === 0) return [];
  const isSse = contentType?.startsWith('text/event-stream');
  const payloads = isSse
    ? text
        .split(/\r\n\r\n|\n\n|\r\r/)
        .map((event) =>
          event
            .split(/\r\n|\n|\r/)
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).replace(/^ /, ''))
            .join('\n'),
        )
        .filter((data) => data.length > 0)
    : [text];
  return payloads.map((payload) => {
    const message = JSON.parse(payload) as WireMessage;
    const isResponse = !('method' in message);
    assertValidLegacyServerMessage(message, isResponse ? requestMethod : undefined);
    return message;
  });
}

/** Options of one raw legacy request. */
export interface LegacyRawOptions {
  /** `Mcp-Session-Id`; omitted when undefined. */
  sessionId?: string;
  /** Header overrides; `undefined` removes a header. */
  headers?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

function headersFor(defaults: Record<string, string>, options: LegacyRawOptions): Record<string, string> {
  const headers: Record<string, string> = { ...defaults };
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  return headers;
}

/**
 * POSTs one JSON-RPC message the way a 2025-11-25 client does after `initialize`: `MCP-Protocol-Version:
 * 2025-11-25`, the session header, no `Mcp-Method`/`Mcp-Name`, no `_meta` envelope.
 */
export async function legacyPost(
  url: URL,
  body: Record<string, unknown>,
  options: LegacyRawOptions = {},
): Promise<LegacyRawResponse> {
  const headers = headersFor(
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY_VERSION,
    },
    options,
  );
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    signal: options.signal,
  });
  const text = await response.text();
  const method = typeof body.method === 'string' ? body.method : undefined;
  return {
    status: response.status,
    headers: response.headers,
    text,
    messages: parseBody(text, response.headers.get('content-type'), method),
  };
}

/** A GET or DELETE on the endpoint, read to its end (not for open streams: see `openLegacyGet`). */
export async function legacyVerb(
  url: URL,
  verb: 'GET' | 'DELETE',
  options: LegacyRawOptions = {},
): Promise<LegacyRawResponse> {
  const headers = headersFor({ accept: 'text/event-stream', 'mcp-protocol-version': LEGACY_VERSION }, options);
  const response = await fetch(url, { method: verb, headers, signal: options.signal });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    messages: parseBody(text, response.headers.get('content-type'), undefined),
  };
}

let nextInitId = 1;

/**
 * A raw `initialize` (no `MCP-Protocol-Version` header, as a 2025-11-25 client sends it) and, unless told
 * otherwise, `notifications/initialized`. Returns the issued session id.
 */
export async function rawInitialize(
  url: URL,
  options: {
    capabilities?: Record<string, unknown>;
    protocolVersion?: string;
    initialized?: boolean;
    headers?: Record<string, string | undefined>;
  } = {},
): Promise<{ sessionId: string; response: LegacyRawResponse }> {
  const response = await legacyPost(
    url,
    {
      id: `init-${nextInitId++}`,
      method: 'initialize',
      params: {
        protocolVersion: options.protocolVersion ?? LEGACY_VERSION,
        capabilities: options.capabilities ?? {},
        clientInfo: { name: 'raw-legacy-e2e', version: '1.0.0' },
      },
    },
    { headers: { 'mcp-protocol-version': undefined, ...options.headers } },
  );
  const sessionId = response.headers.get('mcp-session-id') ?? '';
  if (response.status === 200 && options.initialized !== false) {
    const initialized = await legacyPost(
      url,
      { method: 'notifications/initialized' },
      { sessionId, headers: options.headers },
    );
    expect(initialized.status).toBe(202);
  }
  return { sessionId, response };
}

/**
 * A response read as it arrives: the session's GET stream, or a POST whose answer streams (`requestMethod` set: its
 * final response is validated as that method's result; on a GET stream a response is a problem).
 */
export class LegacyStream extends IncrementalSseReader<WireMessage> {
  constructor(
    response: Response,
    controller: AbortController,
    private readonly requestMethod?: string,
  ) {
    super(response, controller);
  }

  protected validate(message: WireMessage): void {
    const isResponse = !('method' in message);
    if (isResponse && this.requestMethod === undefined)
      throw new Error(`a response on the GET stream: ${JSON.stringify(message)}`);
    assertValidLegacyServerMessage(message, isResponse ? this.requestMethod : undefined);
  }
}

/** Opens the session's GET stream; returns once the response headers arrived. */
export async function openLegacyGet(url: URL, options: LegacyRawOptions = {}): Promise<LegacyStream> {
  const controller = new AbortController();
  const headers = headersFor({ accept: 'text/event-stream', 'mcp-protocol-version': LEGACY_VERSION }, options);
  const response = await fetch(url, { method: 'GET', headers, signal: controller.signal });
  return new LegacyStream(response, controller);
}

/** POSTs one message like `legacyPost`, but returns once the response headers arrived, with the body still streaming. */
export async function openLegacyPost(
  url: URL,
  body: Record<string, unknown>,
  options: LegacyRawOptions = {},
): Promise<LegacyStream> {
  const controller = new AbortController();
  const headers = headersFor(
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY_VERSION,
    },
    options,
  );
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    signal: controller.signal,
  });
  return new LegacyStream(response, controller, typeof body.method === 'string' ? body.method : undefined);
}
