import { Logger } from '@nestjs/common';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import { parseJsonMessage } from '../../protocol/json-nesting.util.js';
import { parseJsonRpcMessage, readableId, type IncomingMessage } from '../../protocol/json-rpc-message.parser.js';
import type { JsonObject, JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import { McpError } from '../../protocol/mcp.error.js';
import { isStatelessVersion, STATELESS_PROTOCOL_VERSIONS } from '../../protocol/protocol-version.constants.js';
import type { McpRequestMeta } from '../../protocol/request-meta.interface.js';
import { hasStatelessEnvelope } from '../../protocol/request-meta.parser.js';
import { ResponseChannel } from '../../protocol/response-channel.js';
import type { LegacyCallRequest } from '../../legacy/legacy-call-request.interface.js';
import { toLegacyError } from '../../legacy/legacy-result.shaper.js';
import { LegacySession } from '../../legacy/legacy-session.js';
import { McpLegacyWireService, type LegacyHandshake } from '../../legacy/legacy-wire.service.js';
import type { McpLegacyWire } from '../../legacy/legacy-wire.profile.js';
import { classifyStdioWire } from '../../legacy/wire.classifier.js';
import type { McpCallRunner } from '../../server/call.runner.js';
import type { CallPort } from '../../server/call-port.interface.js';
import type { McpModernWire } from '../../server/modern-wire.profile.js';
import { errorResponse } from '../../server/mcp.dispatcher.js';
import type { RunningCall } from '../../server/running-call.js';
import type { McpEventBus } from '../../protocol/mcp-event-bus.interface.js';
import { NdjsonLineSplitter } from './ndjson-line.splitter.js';
import type { StdioOutput } from './stdio-output.interface.js';
import { StdioMessageWriter } from './stdio-message.writer.js';
import { echoed } from '../../protocol/echo.util.js';

/** The collaborators of a connection, all singletons of `McpModule`. */
export interface StdioConnectionDeps {
  runner: McpCallRunner;
  /** The wires a call of this connection speaks: 2026-07-28, or the process's 2025-11-25 session. */
  modern: McpModernWire;
  legacyWire: McpLegacyWire;
  legacy: McpLegacyWireService;
  options: McpResolvedOptions;
  bus: McpEventBus;
}

/**
 * How a connection stops. `drain`: the client closed stdin — calls in flight finish and are answered, up to
 * `shutdownTimeoutMs`. `abort`: the server is shutting down — their `ctx.signal` aborts first (ADR 0012), then the
 * same deadline. Either way, calls still open at the deadline are answered with `-32603`, and listen streams end
 * at once with their closing result.
 */
export type StdioCloseMode = 'drain' | 'abort';

/**
 * One MCP peer on a pair of byte streams (spec 2026-07-28: basic/transports/stdio, with its "Backward Compatibility";
 * docs/stdio.md): newline-delimited JSON-RPC in, one line per message out. Each request is served as soon as its line
 * arrives — concurrently with the others — through the dispatcher (2026-07-28, stateless) or, once a first `initialize`
 * made this process a 2025-11-25 session, through the legacy wire service, with real server→client requests written out
 * and their answers read back in. `notifications/cancelled` aborts a call and silences it. A malformed line is answered
 * with an error and otherwise ignored: nothing a client sends ends the connection but the end of its input. Calls run
 * through `McpCallRunner` (timed, drained, never counted against the calls-in-flight caps: the one client owns the
 * process).
 */
export class McpStdioConnection {
  private readonly logger = new Logger('McpStdio');
  private readonly writer: StdioMessageWriter;
  private readonly splitter: NdjsonLineSplitter;
  /** The calls running, by id: for `notifications/cancelled`, duplicate ids and the end of the connection. */
  private readonly inFlight = new Map<JsonRpcId, RunningCall>();
  private readonly running = new Set<Promise<void>>();
  private session?: LegacySession;
  private stopListeningToBus?: () => void;
  private state: 'idle' | 'open' | 'closing' = 'idle';
  private closing?: Promise<void>;
  private closedResolver?: () => void;

  /** Resolves when the connection has stopped and its output is flushed. */
  readonly closed: Promise<void>;

  /**
   * Where the runner sends this connection's calls, on both wires: their messages to the output, and their ids to
   * `inFlight`.
   */
  private readonly port: CallPort = {
    open: (call) => {
      this.connectOutput(call.channel);
      this.inFlight.set(call.id, call);
    },
    close: (call) => {
      if (this.inFlight.get(call.id) === call) this.inFlight.delete(call.id);
    },
  };

  constructor(
    private readonly deps: StdioConnectionDeps,
    private readonly input: NodeJS.ReadableStream,
    output: StdioOutput,
  ) {
    const { options } = deps;
    this.writer = new StdioMessageWriter(
      output,
      { maxFrames: options.maxQueuedFrames, maxBytes: options.maxQueuedBytes },
      (error) => this.onOutputBroken(error),
    );
    this.splitter = new NdjsonLineSplitter(options.maxBodyBytes);
    this.closed = new Promise<void>((resolve) => {
      this.closedResolver = resolve;
    });
  }

  /** Starts reading the input. The connection closes by itself (mode `drain`) when the input ends. */
  start(): void {
    if (this.state !== 'idle') return;
    this.state = 'open';
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
    this.input.once('error', this.onInputError);
  }

  /** Stops reading and winds the connection down (see `StdioCloseMode`). Idempotent; resolves once closed. */
  close(mode: StdioCloseMode = 'abort'): Promise<void> {
    this.closing ??= this.shutdown(mode);
    return this.closing;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.splitter.push(bytes, this.lineSink);
  };

  private readonly onEnd = (): void => {
    // A last message without its newline still counts: `printf '{…}' | server` is a legitimate script.
    this.splitter.end(this.lineSink);
    void this.close('drain');
  };

  private readonly onInputError = (error: Error): void => {
    this.logger.warn(`stdin failed: ${error.message}`);
    void this.close('drain');
  };

  private readonly lineSink = {
    line: (text: string) => this.handleLine(text),
    oversized: () =>
      this.writer.write(
        errorResponse(
          undefined,
          McpError.invalidRequest(`Invalid Request: a message exceeds ${this.deps.options.maxBodyBytes} bytes`),
        ),
      ),
  };

  private handleLine(text: string): void {
    if (this.state !== 'open') return;
    let body: unknown;
    try {
      body = parseJsonMessage(text, this.deps.options.maxJsonDepth, 'Parse error: the line is not valid JSON');
    } catch (error) {
      this.writer.write(errorResponse(undefined, error as McpError));
      return;
    }
    let incoming: IncomingMessage;
    try {
      incoming = parseJsonRpcMessage(body);
    } catch (error) {
      this.writer.write(errorResponse(readableId(body), error as McpError));
      return;
    }
    if (incoming.kind === 'notification') {
      this.notification(incoming.message);
      return;
    }
    if (incoming.kind === 'response') {
      // An answer nobody waits for (late, duplicate, or no session) is dropped: responses are never answered.
      if (!this.session?.deliverResponse(incoming.message))
        this.logger.debug(`Dropped a response to ${String(incoming.message.id)}: nothing waits for it`);
      return;
    }
    const request = incoming.message;
    if (this.inFlight.has(request.id)) {
      this.writer.write(
        errorResponse(
          request.id,
          McpError.invalidRequest(
            `Invalid Request: id ${echoed(JSON.stringify(request.id))} belongs to a request still in flight`,
          ),
        ),
      );
      return;
    }
    // With `legacyWire: false` every request is served as a 2026-only server would: `initialize` makes no session.
    const wire = this.deps.options.legacyWire ? classifyStdioWire(incoming, this.session !== undefined) : 'modern';
    const work = (wire === 'modern' ? this.serveModern(request) : this.serveLegacy(request)).catch((error: unknown) => {
      this.logger.error(`Unexpected failure serving ${request.method}`, (error as Error)?.stack ?? String(error));
    });
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  private notification(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    if (message.method === 'notifications/cancelled') this.cancel(params.requestId, params.reason);
    // The session sees its own notifications (initialized, cancelled, roots/list_changed…); others are ignored.
    if (this.session) this.deps.legacy.notification(this.session, message.method, params);
  }

  /**
   * `notifications/cancelled`: the call's signal aborts and nothing more is written for it (spec 2026-07-28:
   * basic/transports/stdio, "Cancellation").
   */
  private cancel(requestId: unknown, reason: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const call = this.inFlight.get(requestId);
    if (!call) return;
    call.channel.abandon();
    // A session call is aborted by its session, which sees the same notification.
    if (!isSessionCall(call))
      call.cancellation.abort(new Error(typeof reason === 'string' ? reason : 'Cancelled by the client'));
  }

  private async serveModern(request: JsonRpcRequest): Promise<void> {
    let meta: McpRequestMeta;
    try {
      if (!hasStatelessEnvelope(request.params) && request.method !== 'server/discover')
        throw missingEnvelope(this.deps.options.supportedVersions);
      meta = this.deps.modern.preamble(request.params);
    } catch (error) {
      this.writer.write(errorResponse(request.id, error as McpError));
      return;
    }
    await this.deps.runner.run(
      {
        origin: 'stdio',
        wire: this.deps.modern,
        id: request.id,
        method: request.method,
        params: request.params ?? {},
        meta,
        admit: false,
      },
      this.port,
    );
  }

  private async serveLegacy(request: JsonRpcRequest): Promise<void> {
    if (request.method === 'initialize') {
      this.initialize(request);
      return;
    }
    const session = this.session!;
    let local: JsonObject | undefined;
    try {
      local = this.deps.legacy.sessionMethod(session, request, STDIO_CALLER);
    } catch (error) {
      this.writer.write(errorResponse(request.id, toLegacyError(error as McpError)));
      return;
    }
    if (local) {
      this.writer.write({ jsonrpc: '2.0', id: request.id, result: local });
      return;
    }
    const params = request.params ?? {};
    await this.deps.runner.run<LegacyCallRequest>(
      {
        origin: 'stdio',
        wire: this.deps.legacyWire,
        id: request.id,
        method: request.method,
        params,
        meta: this.deps.legacy.callMeta(session, params),
        admit: false,
        session,
      },
      this.port,
    );
  }

  /**
   * The first `initialize` makes this process one 2025-11-25 session (spec 2026-07-28: basic/versioning,
   * "Backward Compatibility with Initialization-Based Versions"): it lives as long as the process, its list changes and
   * resource updates go to stdout, and its server→client requests are answered on stdin. It is not kept in the HTTP
   * session store: no id, no idle expiry, no cap.
   */
  private initialize(request: JsonRpcRequest): void {
    if (this.session) {
      this.writer.write(
        errorResponse(request.id, McpError.invalidRequest('Invalid Request: this process is already initialized')),
      );
      return;
    }
    let handshake: LegacyHandshake;
    try {
      handshake = this.deps.legacy.readHandshake(request.params ?? {});
    } catch (error) {
      this.writer.write(errorResponse(request.id, error as McpError));
      return;
    }
    const session = new LegacySession(
      handshake.protocolVersion,
      handshake.capabilities,
      handshake.clientInfo,
      undefined,
    );
    session.attachStream(this.openChannel());
    this.stopListeningToBus = this.deps.bus.subscribe((event) =>
      session.deliverChange(event, this.deps.options.authorizeDelivery),
    );
    this.session = session;
    this.writer.write({
      jsonrpc: '2.0',
      id: request.id,
      result: this.deps.legacy.initializeResult(handshake.protocolVersion, STDIO_CALLER),
    });
  }

  /** A channel whose messages go to the output as they come (the writer keeps their order). */
  private openChannel(): ResponseChannel {
    const channel = new ResponseChannel();
    this.connectOutput(channel);
    return channel;
  }

  private connectOutput(channel: ResponseChannel): void {
    channel.messages$.subscribe((message) => {
      if (message.type !== 'keepalive') this.writer.write(message.message);
    });
  }

  private async shutdown(mode: StdioCloseMode): Promise<void> {
    this.state = 'closing';
    this.input.removeListener('data', this.onData);
    this.input.pause();
    // A listen stream never ends by itself: it ends now, with its closing result.
    for (const call of this.inFlight.values()) {
      if (!isSessionCall(call) && (call.streaming || mode === 'abort'))
        call.cancellation.abort(new Error('The server is shutting down'));
    }
    if (mode === 'abort') this.session?.close('The server is shutting down');
    // Nobody can answer a server→client request once stdin is gone.
    this.session?.failPendingRequests('The client closed the connection');
    await this.settle(this.deps.options.shutdownTimeoutMs);
    for (const call of this.inFlight.values()) {
      if (!isSessionCall(call)) call.cancellation.abort(new Error('The server is shutting down'));
      this.deps.runner.end(call);
    }
    this.session?.close('The connection closed');
    this.stopListeningToBus?.();
    await withDeadline(this.writer.flush(), this.deps.options.shutdownTimeoutMs);
    this.closedResolver?.();
  }

  /** Waits until no call is running (calls that arrive meanwhile included), or the deadline. */
  private async settle(deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (this.running.size > 0 && Date.now() < deadline) {
      await withDeadline(Promise.allSettled([...this.running]), deadline - Date.now());
    }
  }

  /** The reader of stdout went away: nothing can be answered any more, so stop everything now. */
  private onOutputBroken(error: Error): void {
    this.logger.warn(`stdout closed (${error.message}); stopping`);
    for (const call of this.inFlight.values()) {
      call.channel.abandon();
      if (!isSessionCall(call)) call.cancellation.abort(new Error('The client went away'));
    }
    void this.close('abort');
  }
}

/** stdio's caller: the local process that started the server, with no token (a trusted caller). */
const STDIO_CALLER = Object.freeze({ origin: 'stdio' as const });

/** Whether a call belongs to the process's 2025-11-25 session (aborted through the session, not directly). */
function isSessionCall(call: RunningCall): boolean {
  return (call.request as Partial<LegacyCallRequest>).session !== undefined;
}

/**
 * A request with neither the 2026 envelope nor a session to belong to: name what would work (not `initialize` when the
 * 2025-11-25 wire is off), since legacy clients cannot fall forward (spec 2026-07-28: basic/versioning,
 * "Backward Compatibility with Initialization-Based Versions").
 */
function missingEnvelope(supported: readonly string[]): McpError {
  const sessionVersions = supported.filter((version) => !isStatelessVersion(version));
  const legacy = sessionVersions.length > 0 ? `, and ${sessionVersions.join(', ')} after initialize` : '';
  return McpError.invalidParams(
    `Invalid params: _meta with the protocol version and client capabilities is required; this server speaks ${STATELESS_PROTOCOL_VERSIONS.join(', ')}${legacy}`,
    { supported: [...supported] },
  );
}

/** Waits for `promise`, but no longer than `ms`; the timer never outlives the wait. */
async function withDeadline(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
  });
  try {
    await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
