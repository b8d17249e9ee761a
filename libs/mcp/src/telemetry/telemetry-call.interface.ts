import type { IncomingMessage } from 'node:http';
import type { JsonObject, JsonRpcId } from '../protocol/json-rpc.interface.js';
import type { McpRequestMeta } from '../protocol/request-meta.interface.js';
import type { McpTraceContext } from '../protocol/trace-context.interface.js';

/**
 * What telemetry reads of a call when it opens the call's span: the fields of the runner's `CallRequest` it needs,
 * named here so that this layer does not depend on the server layer above it.
 */
export interface TelemetryCall {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: JsonObject;
  readonly meta: McpRequestMeta;
  /** Where the call came from: HTTP (`network.transport` tcp), stdio (pipe), the testing kit or a task round (none). */
  readonly origin: 'http' | 'stdio' | 'in-process' | 'task';
  /** The Node request of an HTTP call: protocol version and the peer's port. */
  readonly incoming?: IncomingMessage;
  /** The peer address of the connection. */
  readonly remoteAddress?: string;
  /** The 2025-11-25 session the call belongs to (`Mcp-Session-Id`); never set on the 2026-07-28 wire. */
  readonly sessionId?: string;
  /** A task round: the task. */
  readonly task?: { readonly taskId: string };
  /** A task round: the trace context of the request that created the task, linked from the round's span. */
  readonly causedBy?: McpTraceContext;
  /** A task round taken off a queue another process filled (a durable runner): the round's span is a CONSUMER. */
  readonly queued?: boolean;
}

/** How the runner describes the call's target to telemetry, decided where the registry is known. */
export interface TelemetryTarget {
  /** Whether the server implements the method (unimplemented methods are recorded as `_OTHER`). */
  readonly implemented: boolean;
  /** The registered tool (`tools/call`) or prompt (`prompts/get`) the call names; undefined for an unknown name. */
  readonly name?: string;
  /** The protocol revision of the wire the call speaks (`McpWireProfile.revision`): `nest_mcp.wire`. */
  readonly wire: string;
  /** Whether the method answers with a long-lived stream (`delivery: 'stream'`). */
  readonly streaming: boolean;
}
