import { connect } from 'node:net';
import { expect } from 'vitest';
import type { RawResponse } from './raw-request.util.js';
import { assertValidServerMessage, sseDataFrames } from './wire-schema.validator.js';

/**
 * Checks for hand-made requests: every answer is decoded (one JSON body, or every SSE frame), validated against the
 * official schema, and compared with the HTTP status it came with. Also a raw-socket client for requests that
 * `fetch` and `node:http` refuse to send (conflicting lengths, control characters, oversized headers).
 */

/** A JSON-RPC message as the server sent it. */
export interface WireMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The HTTP statuses an MCP error answer may come with, and the JSON-RPC codes each allows. */
export const CODES_BY_STATUS: Readonly<Record<number, readonly number[]>> = {
  200: [-32602, -32603],
  400: [-32700, -32600, -32602, -32020, -32021, -32022],
  403: [-32600],
  404: [-32601],
  406: [-32600],
  413: [-32600],
  415: [-32600],
  503: [-32603],
};

/** Text that must never reach the wire: stack frames and server file paths. */
const LEAKS = /\n\s+at |node_modules|\/work\/|\.ts:\d+|\.js:\d+/;

/**
 * The messages of a response (the SSE frames, or the one JSON body), each validated against the official schema
 * (`requestMethod` selects the result type). Throws on a body that is neither.
 */
export function messagesOf(response: RawResponse, requestMethod?: string): WireMessage[] {
  const contentType = response.headers.get('content-type') ?? '';
  let messages: unknown[];
  if (contentType.startsWith('text/event-stream')) {
    messages = sseDataFrames(response.text).map((data) => JSON.parse(data));
  } else {
    expect(contentType, `status ${response.status}: ${response.text.slice(0, 300)}`).toMatch(/^application\/json\b/);
    expect(response.json, response.text.slice(0, 300)).toBeDefined();
    messages = [response.json];
  }
  for (const message of messages) assertValidServerMessage(message, requestMethod);
  expect(response.text).not.toMatch(LEAKS);
  return messages as WireMessage[];
}

/**
 * Checks an error answer: exact HTTP status, a schema-valid JSON body, the exact JSON-RPC code, and the id —
 * `echoed` (the request's id), `absent` (could not be read), or `either` (the server may omit it).
 */
export function expectError(
  response: RawResponse,
  status: number,
  code: number,
  id: 'echoed' | 'absent' | 'either' = 'echoed',
): NonNullable<WireMessage['error']> {
  expect({ status: response.status, body: response.text.slice(0, 400) }).toMatchObject({ status });
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  const [message] = messagesOf(response);
  expect(message.error, response.text.slice(0, 400)).toBeDefined();
  expect(message.error!.code, response.text.slice(0, 400)).toBe(code);
  expect(message.error!.message.length).toBeGreaterThan(0);
  if (id === 'echoed') expect(message.id).toBe(response.sentId);
  if (id === 'absent') expect(message).not.toHaveProperty('id');
  if (id === 'either' && 'id' in message) expect(message.id).toBe(response.sentId);
  return message.error!;
}

/** Checks a successful answer to `method` (JSON, or the last SSE frame) and returns its result. */
export function expectResult<T = Record<string, unknown>>(response: RawResponse, method: string): T {
  expect({ status: response.status, body: response.text.slice(0, 400) }).toMatchObject({ status: 200 });
  const messages = messagesOf(response, method);
  const final = messages.at(-1)!;
  expect(final.error, response.text.slice(0, 400)).toBeUndefined();
  expect(final.id).toBe(response.sentId);
  return final.result as T;
}

/** The first text block of a tool result. */
export function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text: string }>)[0].text;
}

/** What a raw socket got back: a parsed HTTP response, or the socket error that ended it. */
export interface RawHttpAnswer {
  status?: number;
  headers: Record<string, string>;
  body: string;
  error?: string;
}

/**
 * Writes `request` to a fresh TCP connection and reads until the server closes it (or `timeoutMs`). For requests
 * no HTTP client library will send. With `socketPath`, the connection goes to that Unix socket instead (a relay into
 * a network namespace).
 */
export function rawHttp(
  url: URL,
  request: string | Buffer,
  timeoutMs = 5_000,
  socketPath?: string,
): Promise<RawHttpAnswer> {
  return new Promise((resolve) => {
    const socket = socketPath === undefined ? connect(Number(url.port), url.hostname) : connect(socketPath);
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const timer = setTimeout(() => {
      error = 'timeout';
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (cause) => {
      error = cause.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      const headers: Record<string, string> = {};
      for (const line of text
        .slice(0, head < 0 ? text.length : head)
        .split('\r\n')
        .slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: statusLine ? Number(statusLine[1]) : undefined,
        headers,
        body: head < 0 ? '' : text.slice(head + 4),
        error,
      });
    });
    socket.end(request);
  });
}

/** An HTTP/1.1 POST to `url` as text, with `Connection: close` and the given header lines. */
export function rawPost(url: URL, headerLines: readonly string[], body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const head =
    `POST ${url.pathname} HTTP/1.1\r\n` +
    [`Host: 127.0.0.1:${url.port}`, 'Connection: close', ...headerLines, `Content-Length: ${bytes.length}`].join(
      '\r\n',
    ) +
    '\r\n\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}

/** The JSON-RPC body of a raw answer (Node's own 4xx answers have none). */
export function jsonOf(answer: RawHttpAnswer): WireMessage | undefined {
  try {
    return JSON.parse(answer.body) as WireMessage;
  } catch {
    return undefined;
  }
}
