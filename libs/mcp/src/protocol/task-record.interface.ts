import type { McpAccessToken } from './access-token.interface.js';
import type { McpTraceContext } from './trace-context.interface.js';
import type { JsonObject, JsonValue } from './json-rpc.interface.js';
import type { McpClientCapabilities, McpImplementation } from './mcp-wire.interface.js';
import type { McpWireName } from './wire-name.js';

/** The status of a task (ext-tasks spec 2026-07-28: tasks, "Task Status"). The last three are terminal. */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Whether a status is terminal: a task in it never changes again. */
export function isTerminalTaskStatus(status: McpTaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** One outstanding input request of a task, under its task key (unique over the task's lifetime). */
export interface McpTaskInputRequest {
  /** The key the handler used in `ctx.elicit(key, …)`; its answer is stored under it. */
  readonly handlerKey: string;
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  readonly method: string;
  readonly params?: JsonObject;
}

/** The JSON-RPC error a `failed` task ended with. */
export interface McpTaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * Everything a task is, as a store keeps it: plain JSON, so that a store in Redis or SQL can hold it and a worker in
 * another process can run it. It records what running the task needs (method, params, owner, the creating request's
 * protocol fields, answers so far) and nothing that lives only in memory (no signal, no channel, no HTTP object).
 */
export interface McpTaskRecord {
  /** At least 128 random bits, base64url: unguessable and safe in an `Mcp-Name` header. */
  readonly taskId: string;
  /** The principal that created it (`principal` option); `null` for anonymous callers. Never changes. */
  readonly owner: string | null;
  /** The wire it was created on; it is served on that wire only. */
  readonly wire: McpWireName;
  /** The task-augmented method: `tools/call`. */
  readonly method: string;
  /** The method's own params (`name`, `arguments`), without `_meta`, `inputResponses` or `requestState`. */
  readonly params: JsonObject;
  /** What the creating request declared: what the task may ask the client for. */
  readonly clientCapabilities: McpClientCapabilities;
  readonly protocolVersion: string;
  readonly clientInfo?: McpImplementation;
  status: McpTaskStatus;
  statusMessage?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  lastUpdatedAt: number;
  /** Lifetime from `createdAt`; `null`: unlimited. */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** Answers so far, by handler key (MRTR answers gathered before creation included): the replay's `inputResponses`. */
  answers: Record<string, unknown>;
  /** Outstanding input requests by task key; present only while `input_required`. */
  inputRequests?: Record<string, McpTaskInputRequest>;
  /** Every task key ever issued: a key is never issued twice. */
  issuedKeys: string[];
  /**
   * The handler's own state (`ctx.requestState`, `elicit(…, { state })`) as its last round left it when it asked for
   * input; the next round starts with it. Plain JSON of at most 16 KiB (checked when the handler set it); kept here,
   * server-side, instead of in a sealed `requestState`. Absent until a round asks with a state; dropped when the task
   * ends.
   */
  handlerState?: JsonValue;
  /** `completed`: the request's result as the wire answers it (`resultType: "complete"` included). */
  result?: JsonObject;
  /** `failed`: the JSON-RPC error. */
  error?: McpTaskError;
  /** The tool's guards ran against the creating request: rounds skip them (`McpHandler.authorize`). */
  authorizedAtCreation?: boolean;
  /**
   * The scopes the tool required (`@McpScopes`) when the task was created. Every `tasks/*` request for the task, and
   * the lists and listen streams that name it, must satisfy them as a `tools/call` of the tool would (docs/tasks.md,
   * "Security"). Absent in records written before it existed: the tool's scopes now apply.
   */
  readonly requiredScopes?: readonly string[];
  /**
   * The verified access token of the creating request (its claims, never the token itself), when it carried one: its
   * rounds see it as `ctx.accessToken`, and the `visibility` hook sees the same caller as at creation. Dropped when the
   * task ends.
   */
  accessToken?: McpAccessToken;
  /**
   * The span of the request that created the task, as W3C Trace Context, when telemetry recorded one: every round's
   * span (on any replica) links to it (docs/observability.md, "Tasks").
   */
  readonly traceContext?: McpTraceContext;
  /** Incremented by every committed change (compare-and-set for stores that need it). */
  version: number;
}
