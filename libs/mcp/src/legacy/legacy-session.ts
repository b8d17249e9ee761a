import { randomBytes } from 'node:crypto';
import type { CallCancellation } from '../protocol/call-cancellation.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type {
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from '../protocol/json-rpc.interface.js';
import type { McpClientCapabilities, McpImplementation, McpLogLevel } from '../protocol/mcp-wire.interface.js';
import type { ResponseChannel } from '../protocol/response-channel.js';
import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';
import { CHANGE_NOTIFICATIONS, coversUri, MAX_RESOURCE_SUBSCRIPTIONS } from '../subscriptions/subscription-filter.js';
import { mayDeliver } from '../subscriptions/delivery.policy.js';
import type { McpDeliveryAuthorizer } from '../protocol/delivery-authorizer.interface.js';
import type {
  McpListenerSource,
  McpListenerView,
  McpListenerVisibility,
} from '../protocol/listener-visibility.interface.js';
import {
  MAX_SUBSCRIPTION_BYTES_PER_SESSION,
  SESSION_BASE_BYTES,
  STRING_ENTRY_BYTES,
} from './legacy-session.constants.js';
import type { SessionMemoryBudget } from './session-memory.budget.js';

interface PendingRequest {
  resolve: (message: JsonRpcResultResponse | JsonRpcErrorResponse) => void;
  reject: (error: Error) => void;
}

/**
 * One 2025-11-25 client: what `initialize` negotiated, the session-wide log level and resource subscriptions, the
 * standalone GET stream, the calls in flight (for `notifications/cancelled`) and the server→client requests
 * waiting for their answers.
 *
 * A session lives as long as its client keeps it busy, so everything it keeps is bounded: the capabilities and
 * `clientInfo` are the bounded copies `initialize` made, and subscriptions are capped in number and bytes. With a
 * `budget` (HTTP sessions), what the session keeps is also counted against `maxSessionBytes`: the store reserves
 * {@link LegacySession.baseBytes} before creating it, each subscription reserves its URI, and `close` gives it all back.
 *
 * Resource updates follow per-caller visibility: they are judged with the caller of the session's latest
 * `resources/subscribe` (`watchAs`), so an update of a URI served by a resource or template that caller may not read
 * never goes out, though the subscription was answered like one to an unknown URI.
 */
export class LegacySession {
  /** Visible ASCII, 192 random bits, after the replica's `sessionRoute` and a dot when it has one. */
  readonly id: string;
  /** When `initialize` created it (`performance.now()`): `mcp.server.session.duration` is measured from here. */
  readonly openedAt = performance.now();
  initialized = false;
  logLevel?: McpLogLevel;
  lastActivity = Date.now();
  private readonly subscribed = new Set<string>();
  private subscriptionBytes = 0;
  private heldBytes: number;
  private closed = false;
  /** The caller of the latest `resources/subscribe`, and what it may hear (none: nothing is hidden from it). */
  private subscriber?: McpListenerSource;
  private view?: McpListenerView;
  private stream?: ResponseChannel;
  private readonly calls = new Map<JsonRpcId, CallCancellation>();
  private readonly pending = new Map<string, PendingRequest>();
  private nextRequestId = 1;

  constructor(
    readonly protocolVersion: string,
    readonly capabilities: McpClientCapabilities,
    readonly clientInfo: McpImplementation | undefined,
    readonly principal: string | undefined,
    private readonly budget?: SessionMemoryBudget,
    route?: string,
  ) {
    const random = randomBytes(24).toString('base64url');
    this.id = route === undefined ? random : `${route}.${random}`;
    this.heldBytes = LegacySession.baseBytes(clientInfo);
  }

  /**
   * Whether the session is served over HTTP: only those are kept by the store, within its memory budget (stdio's one
   * session has neither). Such a session's caller is remote: it is never trusted as a local one.
   */
  get remote(): boolean {
    return this.budget !== undefined;
  }

  /** What a session with this `clientInfo` costs before any subscription, for the `maxSessionBytes` budget. */
  static baseBytes(clientInfo: McpImplementation | undefined): number {
    let bytes = SESSION_BASE_BYTES;
    for (const field of [clientInfo?.name, clientInfo?.version, clientInfo?.title]) {
      if (field !== undefined) bytes += field.length + STRING_ENTRY_BYTES;
    }
    return bytes;
  }

  /** The resource URIs this session subscribed to. */
  get subscriptions(): ReadonlySet<string> {
    return this.subscribed;
  }

  /**
   * `resources/subscribe`: adds a URI, within the bounds of a session (at most `MAX_RESOURCE_SUBSCRIPTIONS` URIs and
   * `MAX_SUBSCRIPTION_BYTES_PER_SESSION` bytes: -32602) and of the server (`maxSessionBytes`: -32603). Subscribing
   * again to a URI already held changes nothing. A refusal leaves the session as it was.
   */
  subscribe(uri: string): void {
    // A session that already ended (a request raced its DELETE) keeps nothing more.
    if (this.closed || this.subscribed.has(uri)) return;
    if (this.subscribed.size >= MAX_RESOURCE_SUBSCRIPTIONS) {
      throw McpError.invalidParams(
        `Invalid params: a session subscribes to at most ${MAX_RESOURCE_SUBSCRIPTIONS} resources; unsubscribe from one first`,
      );
    }
    const bytes = uri.length + STRING_ENTRY_BYTES;
    if (this.subscriptionBytes + bytes > MAX_SUBSCRIPTION_BYTES_PER_SESSION) {
      throw McpError.invalidParams(
        `Invalid params: the URIs a session subscribes to may take at most ${MAX_SUBSCRIPTION_BYTES_PER_SESSION} bytes together; unsubscribe from some first`,
      );
    }
    if (this.budget && !this.budget.tryReserve(bytes)) {
      throw new McpError(
        McpErrorCode.InternalError,
        `Sessions hold all the memory this server allows them (option maxSessionBytes, ${this.budget.limit} bytes); retry later`,
      );
    }
    this.subscribed.add(uri);
    this.subscriptionBytes += bytes;
    this.heldBytes += bytes;
  }

  /**
   * Judges the session's resource updates as `subscriber` may see them, from now on (the caller of a
   * `resources/subscribe`; `visibility` absent: nothing is hidden). Keep only what the judgment needs: never the HTTP
   * objects of one exchange, which the session outlives.
   */
  watchAs(subscriber: McpListenerSource, visibility: McpListenerVisibility | undefined): void {
    this.subscriber = subscriber;
    this.view = visibility?.viewFor(subscriber);
  }

  /** Judges again with the same subscriber (the resources or templates changed). */
  reviewVisibility(visibility: McpListenerVisibility): void {
    if (this.subscriber) this.view = visibility.viewFor(this.subscriber);
  }

  /** Whether an update of `uri` may reach this session: no resource or template its subscriber may not read serves it. */
  hears(uri: string): boolean {
    return this.view === undefined || this.view.hears(uri);
  }

  /**
   * Whether a resync repeats the update of subscribed `uri`: always when nothing is hidden from the subscriber, else
   * only when a handler it may read serves the URI — not an unknown one either, so that a resync does not tell a
   * hidden URI from an unknown one.
   */
  resyncs(uri: string): boolean {
    return this.view === undefined || this.view.follows(uri);
  }

  /** `resources/unsubscribe`: removes a URI (one not subscribed is ignored) and gives its bytes back. */
  unsubscribe(uri: string): void {
    if (!this.subscribed.delete(uri)) return;
    const bytes = uri.length + STRING_ENTRY_BYTES;
    this.subscriptionBytes -= bytes;
    this.heldBytes -= bytes;
    this.budget?.release(bytes);
  }

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
   * Sends a server→client request on the GET stream (a task's input request when no `tasks/result` of the task is
   * waiting: spec 2025-11-25: basic/utilities/tasks, "Input Required Status"); false when no stream is open.
   */
  requestOnStream(request: JsonRpcRequest): boolean {
    return this.stream?.request(request) ?? false;
  }

  /** Whether the session ended (`close`): nothing more is delivered to it. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Tells an initialized session what a change event means on this wire (spec 2025-11-25: server/resources,
   * "List Changed Notification" and "Subscriptions"): list changes always (untagged, no opt-in), resource updates only
   * for subscribed URIs and their sub-resources that the subscriber may read (`hears`); either only if the event's
   * audience and the `authorizeDelivery` hook admit the session's principal. False when nothing went out (not
   * initialized, not subscribed, not admitted, or no stream open).
   */
  deliverChange(event: McpChangeEvent, authorize?: McpDeliveryAuthorizer): boolean {
    // A resync is no notification of its own: McpSessionStore expands it into the session's lists and URIs.
    // The events extension is not defined on this wire: its catalog changes are not told to sessions.
    if (!this.initialized || event.type === 'resync' || event.type === 'eventsListChanged') return false;
    if (event.type === 'resourceUpdated') {
      if (![...this.subscriptions].some((uri) => coversUri(uri, event.uri)) || !this.hears(event.uri)) return false;
    }
    if (!mayDeliver({ principal: this.principal }, event, authorize)) return false;
    if (event.type === 'resourceUpdated') {
      return this.sendOnStream({
        jsonrpc: '2.0',
        method: CHANGE_NOTIFICATIONS.resourceUpdated,
        params: { uri: event.uri },
      });
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
  expectResponse(): {
    id: string;
    response: Promise<JsonRpcResultResponse | JsonRpcErrorResponse>;
    cancel: (error: Error) => void;
  } {
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
    if (!this.closed) {
      this.closed = true;
      this.budget?.release(this.heldBytes);
    }
  }
}
