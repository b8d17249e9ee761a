import { McpError } from './mcp.error.js';
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from './json-rpc.interface.js';
import { isJsonObject } from './json-object.util.js';

/** A parsed incoming message: a request (answered) or a notification (202, no answer). */
export type IncomingMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResultResponse | JsonRpcErrorResponse };

/**
 * Checks the JSON-RPC 2.0 envelope of one decoded message. MCP forbids batching, so an array is an invalid
 * request. Throws `McpError` `-32600` (HTTP 400) for anything that is not a request or a notification.
 */
export function parseJsonRpcMessage(body: unknown): IncomingMessage {
  if (Array.isArray(body)) {
    throw McpError.invalidRequest('Invalid Request: batch arrays are not supported');
  }
  if (!isJsonObject(body)) {
    throw McpError.invalidRequest('Invalid Request: the body must be a JSON-RPC object');
  }
  if (body.jsonrpc !== '2.0') {
    throw McpError.invalidRequest('Invalid Request: jsonrpc must be "2.0"');
  }
  if (typeof body.method !== 'string' || body.method.length === 0) {
    if (('result' in body || 'error' in body) && body.method === undefined) {
      // A client's answer to a server→client request: only meaningful on a 2025-11-25 session.
      const validId = typeof body.id === 'string' || (typeof body.id === 'number' && Number.isInteger(body.id));
      const validResult = 'result' in body ? isJsonObject(body.result) : isJsonObject(body.error);
      if (validId && validResult) return { kind: 'response', message: body as unknown as JsonRpcResultResponse };
      throw McpError.invalidRequest('Invalid Request: malformed JSON-RPC response');
    }
    throw McpError.invalidRequest('Invalid Request: method must be a non-empty string');
  }
  if (body.params !== undefined && !isJsonObject(body.params)) {
    throw McpError.invalidRequest('Invalid Request: params must be an object');
  }
  if (!('id' in body)) {
    return { kind: 'notification', message: body as unknown as JsonRpcNotification };
  }
  const id = body.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  if (!validId) {
    throw McpError.invalidRequest('Invalid Request: id must be a string or an integer');
  }
  return { kind: 'request', message: body as unknown as JsonRpcRequest };
}

/** Reads the id of a message for an error response, when it can be read at all. */
export function readableId(body: unknown): string | number | undefined {
  if (!isJsonObject(body)) return undefined;
  const id = body.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : undefined;
}
