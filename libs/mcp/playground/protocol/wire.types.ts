/** The shapes of the 2026-07-28 wire the page reads and writes (spec 2026-07-28: schema). */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: Record<string, unknown> & { extensions?: Record<string, unknown> };
  instructions?: string;
  _meta?: Record<string, unknown>;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: Record<string, unknown>;
  _meta?: { ui?: { resourceUri?: string; visibility?: string[] } } & Record<string, unknown>;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One input request of an `input_required` result or task (`inputRequests[key]`). */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

export type InputRequests = Record<string, InputRequest>;

/** An answer to an elicitation (`inputResponses[key]`). */
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task of the tasks extension, as `tasks/get` returns it. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: InputRequests;
  result?: Record<string, unknown>;
  error?: JsonRpcError;
}

/** The result of `tools/call`, `prompts/get` or `resources/read` after the MRTR rounds. */
export type FinalResult = Record<string, unknown> & { resultType?: string };
