import { randomBytes } from 'node:crypto';
import type { CallCancellation } from '../protocol/call-cancellation.js';
import type { JsonRpcErrorResponse, JsonRpcId, JsonRpcNotification, JsonRpcResultResponse } from '../protocol/json-rpc.interface.js';
import type { McpClientCapabilities, McpImplementation, McpLogLevel } from '../protocol/mcp-wire.interface.js';
import type { ResponseChannel } from '../protocol/response-channel.js';
import type { McpChangeEvent } from '../subscriptions/mcp-event.interface.js';
import { CHANGE_NOTIFICATIONS, coversUri } from '../subscriptions/subscription-filter.js';


interface PendingRequest {
  resolve: (message: JsonRpcResultResponse | JsonRpcErrorResponse) => void;
  reject: (error: Error) => void;
}

/**
 * One 2025-11-25 client: what `initialize` negotiated, the session-wide log level and resource subscriptions, the
 * standalone GET stream, the calls in flight (for `notifications/cancelled`) and the server→client requests
 * waiting for their answers.
 */
export class LegacySession {
  /** Visible ASCII, 192 random bits. */
  readonly id = randomBytes(24).toString('base64url');
  initialized = false;
  logLevel?: McpLogLevel;
  readonly subscriptions = new Set<string>();
  lastActivity = Date.now();
  private stream?: ResponseChannel;
  private readonly calls = new Map<JsonRpcId, CallCancellation>();
  private readonly pending = new Map<string, PendingRequest>();
  private nextRequestId = 1;

  constructor(
    readonly protocolVersion: string,
    readonly capabilities: McpClientCapabilities,
    readonly clientInfo: McpImplementation | undefined,
    readonly principal: string | undefined,
  ) {}

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Whether the standalone GET stream is open (it also keeps the session from idling out). */
  get hasOpenStream(): boolean {
    return this.stream !== undefined && !this.stream.isFinished;
  }

  /** Attaches the standalone GET stream; false if one is already open. */
  attachStream(channel: ResponseChannel): boolean {
    if (this.stream && !this.stream.isFinished) return false;
    this.stream = channel;
    return true;
  }

  detachStream(channel: ResponseChannel): void {
    if (this.stream === channel) this.stream = undefined;
  }

  /** Sends a session-level notification on the GET stream; dropped when none is open. */
  sendOnStream(notification: JsonRpcNotification): boolean {
    return this.stream?.notify(notification) ?? false;
  }

  /**
   * Tells an initialized session what a change event means on this wire (BACKCOMPAT §6): list changes always
   * (untagged, no opt-in), resource updates only for subscribed URIs and their sub-resources. False when nothing went
   * out (not initialized, not subscribed, or no stream open).
   */
  deliverChange(event: McpChangeEvent): boolean {
    if (!this.initialized) return false;
    if (event.type === 'resourceUpdated') {
      const subscribed = [...this.subscriptions].some((uri) => coversUri(uri, event.uri));
      return subscribed && this.sendOnStream({ jsonrpc: '2.0', method: CHANGE_NOTIFICATIONS.resourceUpdated, params: { uri: event.uri } });
    }
    return this.sendOnStream({ jsonrpc: '2.0', method: CHANGE_NOTIFICATIONS[event.type] });
  }

  trackCall(id: JsonRpcId, cancellation: CallCancellation): void {
    this.calls.set(id, cancellation);
  }

  untrackCall(id: JsonRpcId): void {
    this.calls.delete(id);
  }

  /** `notifications/cancelled`: aborts the call's signal; unknown or finished ids are ignored. */
  cancelCall(id: unknown, reason: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.calls.get(id)?.abort(new Error(typeof reason === 'string' ? reason : 'Cancelled by the client'));
  }

  /** Reserves an id for a server→client request and resolves with the client's answer. */
  expectResponse(): { id: string; response: Promise<JsonRpcResultResponse | JsonRpcErrorResponse>; cancel: (error: Error) => void } {
    const id = `s-${this.nextRequestId++}`;
    let entry!: PendingRequest;
    const response = new Promise<JsonRpcResultResponse | JsonRpcErrorResponse>((resolve, reject) => {
      entry = { resolve, reject };
    });
    this.pending.set(id, entry);
    return {
      id,
      response,
      cancel: (error) => {
        if (this.pending.delete(id)) entry.reject(error);
      },
    };
  }

  /** Routes a POSTed JSON-RPC response to the request that waits for it; false when nothing waits. */
  deliverResponse(message: JsonRpcResultResponse | JsonRpcErrorResponse): boolean {
    const key = String(message.id);
    const entry = this.pending.get(key);
    if (!entry) return false;
    this.pending.delete(key);
    entry.resolve(message);
    return true;
  }

  /** Fails every server→client request still waiting for its answer: the client can no longer send one. */
  failPendingRequests(reason: string): void {
    for (const entry of this.pending.values()) entry.reject(new Error(reason));
    this.pending.clear();
  }

  /** Ends the session: open calls abort, waiting requests fail, the GET stream closes. */
  close(reason: string): void {
    for (const abort of this.calls.values()) abort.abort(new Error(reason));
    this.failPendingRequests(reason);
    this.calls.clear();
    this.stream?.abandon();
  }
}
