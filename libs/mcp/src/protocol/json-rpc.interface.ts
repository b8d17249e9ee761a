/** A JSON-RPC request id: a string or an integer, never null. */
export type JsonRpcId = string | number;

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: unknown };

/** A JSON-RPC 2.0 request as received. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonObject;
}

/** A JSON-RPC 2.0 notification (no id, never answered). */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

/** A JSON-RPC 2.0 success response. */
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: JsonObject;
}

/** A JSON-RPC 2.0 error response; `id` is absent only when it could not be read. */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  error: { code: number; message: string; data?: unknown };
}

/** Any message the server writes. */
export type JsonRpcOutgoing = JsonRpcResultResponse | JsonRpcErrorResponse | JsonRpcNotification;
