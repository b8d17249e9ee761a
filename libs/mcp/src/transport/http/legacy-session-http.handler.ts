import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import type { LegacyCallRequest } from '../../legacy/legacy-call-request.interface.js';
import type { LegacySession } from '../../legacy/legacy-session.js';
import { SESSION_RETRY_AFTER_SECONDS } from '../../legacy/legacy-session.constants.js';
import { McpSessionStore, type SessionRefusal } from '../../legacy/legacy-session.store.js';
import { McpLegacyWireService, type LegacyCaller, type LegacyHandshake } from '../../legacy/legacy-wire.service.js';
import { McpLegacyWire } from '../../legacy/legacy-wire.profile.js';
import type { McpAccessToken } from '../../protocol/access-token.interface.js';
import type { IncomingMessage as IncomingRpc } from '../../protocol/json-rpc-message.parser.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import { McpErrorCode } from '../../protocol/error-codes.enum.js';
import { McpError } from '../../protocol/mcp.error.js';
import { McpHeaders } from '../../protocol/meta-keys.constants.js';
import { ResponseChannel } from '../../protocol/response-channel.js';
import { McpCallRunner } from '../../server/call.runner.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import type { CapturedBody } from './captured-body.interface.js';
import { edgeRefusal } from './edge-refusal.util.js';
import { HttpCallPort, type HttpCallRequest, httpQueueBounds, type HttpQueueBounds } from './http-call.port.js';
import type { HttpExchange } from './http-exchange.interface.js';
import { MCP_RAW_BODY } from './raw-body.constants.js';
import { type AcceptedMediaTypes, ResponseWriter, writeEmpty, writeError, writeJson } from './response.writer.js';
import { echoed } from '../../protocol/echo.util.js';

/**
 * One HTTP exchange of a 2025-11-25 session, with its caller: the principal (from the verified token with `auth`, else
 * from the `principal` option) and, with `auth`, the token's content.
 */
export interface LegacyExchange extends HttpExchange {
  principal?: string;
  accessToken?: McpAccessToken;
}

/** A session call that came over HTTP. */
type LegacyHttpCallRequest = HttpCallRequest & LegacyCallRequest;

/** The length of the POST body the transport captured (every MCP POST has one), for the `initialize` size check. */
function capturedBodyBytes(request: IncomingMessage): number | undefined {
  const raw = (request as IncomingMessage & { [MCP_RAW_BODY]?: CapturedBody })[MCP_RAW_BODY]?.raw;
  return raw?.ok ? raw.body.length : undefined;
}

/** Who sent an exchange, as the session methods and `initialize` judge it: a remote caller. */
function callerOf(exchange: LegacyExchange): LegacyCaller {
  return { principal: exchange.principal, accessToken: exchange.accessToken, origin: 'http' };
}

/** The methods a session answers itself (no route of the wire): telemetry names their refusals by the method. */
const SESSION_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
  'notifications/cancelled',
]);

const sessionError = (status: number, message: string) =>
  new McpError(McpErrorCode.InvalidRequest, message, undefined, status);

/**
 * The 2025-11-25 wire on the same endpoint (ADR 0011; docs/two-wires.md; spec 2025-11-25: basic/transports,
 * "Streamable HTTP"): `initialize` and sessions, the GET stream, DELETE, `ping`, `logging/setLevel`,
 * `resources/subscribe`, cancellation by notification, and the client's answers to server→client requests. What a
 * session does is `McpLegacyWireService` (shared with stdio); this class adds the HTTP part: session ids, the version
 * header, status codes and the GET stream. Session calls run through `McpCallRunner`, admitted by the calls-in-flight
 * caps like 2026 calls.
 */
@Injectable()
export class McpLegacyHttpHandler {
  private readonly logger = new Logger('McpLegacyHttp');
  private readonly bounds: HttpQueueBounds;
  /** With `auth`, a call refused by a handler's scope check answers 403 with its challenge, as on the 2026 wire. */
  private readonly port: HttpCallPort<LegacyHttpCallRequest>;

  constructor(
    private readonly sessions: McpSessionStore,
    private readonly wire: McpLegacyWireService,
    private readonly profile: McpLegacyWire,
    private readonly runner: McpCallRunner,
    private readonly options: McpResolvedOptions,
    private readonly telemetry: McpTelemetry,
  ) {
    this.bounds = httpQueueBounds(options);
    this.port = new HttpCallPort(this.bounds, Boolean(options.auth));
  }

  /** POST: `initialize`, or a message of a session; `accepted` is what the client's Accept header allows. */
  async handlePost(exchange: LegacyExchange, incoming: IncomingRpc, accepted: AcceptedMediaTypes): Promise<void> {
    const { response } = exchange;
    if (incoming.kind === 'request' && incoming.message.method === 'initialize') {
      this.initialize(exchange, incoming.message);
      return;
    }
    const id = incoming.kind === 'notification' ? undefined : incoming.message.id;
    /** Set when the call goes on to the runner, which records what happens next (its admission refusals too). */
    let handedOver = false;
    try {
      const session = this.sessionOf(exchange);
      this.checkVersionHeader(exchange.request, session);
      session.touch();
      if (incoming.kind === 'response') {
        // An answer nobody waits for (late, duplicate) is accepted and dropped.
        session.deliverResponse(incoming.message);
        writeEmpty(response, 202);
        return;
      }
      if (incoming.kind === 'notification') {
        this.wire.notification(session, incoming.message.method, incoming.message.params ?? {});
        writeEmpty(response, 202);
        return;
      }
      // The caller judges what `resources/subscribe` may deliver (per-caller visibility).
      const caller = callerOf(exchange);
      const local = this.wire.sessionMethod(session, incoming.message, caller);
      if (local) {
        writeJson(response, 200, { jsonrpc: '2.0', id: incoming.message.id, result: local });
        return;
      }
      const message = incoming.message;
      const params = message.params ?? {};
      // A refusal of the calls-in-flight caps is thrown before anything is written: answered below, 429/503.
      handedOver = true;
      await this.runner.run<LegacyHttpCallRequest>(
        {
          origin: 'http',
          wire: this.profile,
          id: message.id,
          method: message.method,
          params,
          meta: this.wire.callMeta(session, params),
          principal: exchange.principal,
          accessToken: exchange.accessToken,
          remoteAddress: exchange.request.socket.remoteAddress,
          httpRequest: exchange.frameworkRequest,
          httpResponse: exchange.frameworkResponse,
          admit: true,
          session,
          sessionId: session.id,
          incoming: exchange.request,
          response,
          accepted,
        },
        this.port,
      );
    } catch (error) {
      const mcpError = error instanceof McpError ? error : McpError.internal();
      if (!(error instanceof McpError)) this.logger.error('Unexpected legacy failure', (error as Error)?.stack);
      this.writeSessionError(response, id, mcpError);
      if (!handedOver)
        this.recordRefusal(exchange.request, mcpError, incoming.kind === 'response' ? undefined : incoming.message);
    }
  }

  /** GET: the session's standalone stream for list changes, resource updates and session-level logs. */
  handleGet(exchange: LegacyExchange): void {
    try {
      const session = this.sessionOf(exchange);
      // Checked before the stream commits its 200, so the refusal keeps its status.
      if (session.hasOpenStream) throw sessionError(409, 'Conflict: this session already has an open stream');
      const channel = new ResponseChannel();
      // The writer abandons the channel when the client goes away.
      new ResponseWriter(channel, exchange.response, { json: false, sse: true }, this.bounds.stream).open();
      session.attachStream(channel);
      exchange.response.once('close', () => session.detachStream(channel));
      const keepAlive = setInterval(() => channel.keepAlive(), this.options.keepAliveMs);
      keepAlive.unref();
      exchange.response.once('close', () => clearInterval(keepAlive));
    } catch (error) {
      this.writeSessionError(exchange.response, undefined, error as McpError);
    }
  }

  /** DELETE: ends the session; later requests with its id get 404. */
  handleDelete(exchange: LegacyExchange): void {
    try {
      const session = this.sessionOf(exchange);
      this.sessions.delete(session.id, 'The client ended the session');
      writeEmpty(exchange.response, 204);
    } catch (error) {
      this.writeSessionError(exchange.response, undefined, error as McpError);
    }
  }

  private initialize(exchange: LegacyExchange, message: JsonRpcRequest): void {
    const { response } = exchange;
    let handshake: LegacyHandshake;
    try {
      handshake = this.wire.readHandshake(message.params ?? {}, capturedBodyBytes(exchange.request));
    } catch (error) {
      const mcpError = error as McpError;
      this.writeSessionError(response, message.id, mcpError);
      this.recordRefusal(exchange.request, mcpError, message);
      return;
    }
    const created = this.sessions.create(handshake, {
      principal: exchange.principal,
      address: exchange.request.socket.remoteAddress,
    });
    if ('refused' in created) {
      const refusal = this.refusal(created.refused);
      this.writeSessionError(response, message.id, refusal);
      this.recordRefusal(exchange.request, refusal, message);
      return;
    }
    // Advertised per caller, as server/discover shows it (the exchange's verified token).
    const caller = callerOf(exchange);
    const result = this.wire.initializeResult(handshake.protocolVersion, caller);
    writeJson(response, 200, { jsonrpc: '2.0', id: message.id, result }, { 'Mcp-Session-Id': created.session.id });
  }

  /**
   * A refused `initialize`: 503 when the server is full (sessions or their bytes), 429 when this caller already holds
   * its share — it can end one of its sessions (DELETE) instead of waiting. Both name the limit and its option.
   */
  private refusal(refused: SessionRefusal): McpError {
    const { maxSessions, maxSessionBytes, maxSessionsPerPrincipal, maxSessionsPerAddress } = this.options;
    const refuse = (httpStatus: 429 | 503, message: string) =>
      new McpError(McpErrorCode.InternalError, message, { retryAfterSeconds: SESSION_RETRY_AFTER_SECONDS }, httpStatus);
    switch (refused) {
      case 'total':
        return refuse(503, `Too many sessions on this server (limit ${maxSessions}, option maxSessions); retry later`);
      case 'memory':
        return refuse(
          503,
          `Sessions hold all the memory this server allows them (limit ${maxSessionBytes} bytes, option maxSessionBytes); retry later`,
        );
      case 'principal':
        return refuse(
          429,
          `Too many sessions for this principal (limit ${maxSessionsPerPrincipal}, option maxSessionsPerPrincipal); end one with DELETE or retry later`,
        );
      case 'address':
        return refuse(
          429,
          `Too many sessions from this address (limit ${maxSessionsPerAddress}, option maxSessionsPerAddress); end one with DELETE or retry later`,
        );
    }
  }

  /**
   * Records a POST refused here, before the runner (an unknown session, a wrong version header, a refused
   * `initialize`), as the 2026 transport records its own (ADR 0035); nothing when telemetry is off.
   */
  private recordRefusal(
    request: IncomingMessage,
    error: McpError,
    message: JsonRpcRequest | JsonRpcNotification | undefined,
  ): void {
    if (!this.telemetry.available) return;
    const method = message?.method;
    const implemented =
      method !== undefined && (SESSION_METHODS.has(method) || this.profile.findRoute(method) !== undefined);
    this.telemetry.recordRefusal(edgeRefusal(request, error, message, implemented));
  }

  /**
   * Answers an error raised outside a call (the session, its headers, its own methods, `initialize`, the
   * calls-in-flight caps) by the 2025-11-25 wire's one rule (`McpLegacyWire.errorAnswer`): the session's refusals
   * keep their status; an error with HTTP 200 takes this revision's shape.
   */
  private writeSessionError(response: ServerResponse, id: JsonRpcId | undefined, error: McpError): void {
    const answer = this.profile.errorAnswer(error, 'session');
    writeError(response, id, answer.error, answer.httpStatus);
  }

  private sessionOf(exchange: LegacyExchange): LegacySession {
    const id = exchange.request.headers[McpHeaders.sessionId];
    if (typeof id !== 'string' || id.length === 0) {
      throw sessionError(400, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
    }
    const session = this.sessions.get(id, exchange.principal);
    if (!session) throw sessionError(404, 'Session not found: initialize a new session');
    return session;
  }

  /**
   * After `initialize`, the header names the negotiated version; absent means the session's (spec 2025-11-25:
   * basic/transports, "Protocol Version Header").
   */
  private checkVersionHeader(request: IncomingMessage, session: LegacySession): void {
    const version = request.headers[McpHeaders.protocolVersion];
    if (version !== undefined && version !== session.protocolVersion) {
      throw sessionError(
        400,
        `Bad Request: unsupported MCP-Protocol-Version '${echoed(String(version))}' for this session`,
      );
    }
  }
}
