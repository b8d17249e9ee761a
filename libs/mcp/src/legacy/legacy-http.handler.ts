import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { IncomingMessage as IncomingRpc } from '../protocol/json-rpc-message.parser.js';
import type { JsonObject, JsonRpcId, JsonRpcRequest } from '../protocol/json-rpc.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpHeaders } from '../protocol/meta-keys.constants.js';
import { MCP_LOG_LEVELS, type McpClientCapabilities, type McpLogLevel } from '../protocol/mcp-wire.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import { McpCallTracker } from '../server/call.tracker.js';
import { McpDiscoverService } from '../server/discover.service.js';
import { errorResponse, McpDispatcher } from '../server/mcp.dispatcher.js';
import { LATEST_LEGACY_VERSION, LEGACY_PROTOCOL_VERSIONS } from './legacy-versions.constants.js';
import { toLegacyError, toLegacyResult } from './legacy-result.shaper.js';
import type { LegacySession } from './legacy-session.js';
import { McpSessionStore } from './legacy-session.store.js';
import { SessionClientRequests } from './session-client-requests.js';

const LEGACY_VERSIONS = new Set(LEGACY_PROTOCOL_VERSIONS);
const LOG_LEVELS: ReadonlySet<string> = new Set(MCP_LOG_LEVELS);
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

/** What the HTTP transport hands over for one legacy exchange. */
export interface LegacyExchange {
  request: IncomingMessage;
  response: ServerResponse;
  frameworkRequest: unknown;
  frameworkResponse: unknown;
  principal?: string;
}

/** How the transport writes; keeps this layer free of HTTP writer details. */
export interface LegacyResponder {
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  empty(status: number): void;
  /** A response channel streamed to this exchange (JSON or SSE by its first message). */
  channel(): ResponseChannel;
  /** A standalone SSE stream for the session's server-initiated messages. */
  stream(): ResponseChannel;
  /** Called when the server starts closing while this exchange is in flight. */
  onShutdown?: () => void;
}

const sessionError = (status: number, message: string) => new McpError(McpErrorCode.InvalidRequest, message, undefined, status);

/**
 * The 2025-11-25 wire on the same endpoint (DESIGN D7, BACKCOMPAT): `initialize` and sessions, the GET stream,
 * DELETE, `ping`, `logging/setLevel`, `resources/subscribe`, cancellation by notification, and the client's answers
 * to server→client requests. Every other method runs through the same dispatcher and handlers as the 2026 wire,
 * with results and errors reshaped for this revision.
 */
@Injectable()
export class McpLegacyHttpHandler {
  private readonly logger = new Logger('McpLegacyHttp');

  constructor(
    private readonly sessions: McpSessionStore,
    private readonly dispatcher: McpDispatcher,
    private readonly discover: McpDiscoverService,
    private readonly options: McpResolvedOptions,
    private readonly calls: McpCallTracker,
  ) {}

  async handlePost(exchange: LegacyExchange, incoming: IncomingRpc, respond: LegacyResponder): Promise<void> {
    if (incoming.kind === 'request' && incoming.message.method === 'initialize') {
      this.initialize(exchange, incoming.message, respond);
      return;
    }
    const id = incoming.kind === 'notification' ? undefined : incoming.message.id;
    try {
      const session = this.sessionOf(exchange);
      this.checkVersionHeader(exchange.request, session);
      session.touch();
      if (incoming.kind === 'response') {
        // An answer nobody waits for (late, duplicate) is accepted and dropped.
        session.deliverResponse(incoming.message);
        respond.empty(202);
        return;
      }
      if (incoming.kind === 'notification') {
        this.notification(session, incoming.message.method, incoming.message.params ?? {});
        respond.empty(202);
        return;
      }
      const local = this.sessionMethod(session, incoming.message);
      if (local) {
        respond.json(200, { jsonrpc: '2.0', id: incoming.message.id, result: local });
        return;
      }
      await this.dispatch(exchange, session, incoming.message, respond);
    } catch (error) {
      const mcpError = error instanceof McpError ? error : McpError.internal();
      if (!(error instanceof McpError)) this.logger.error('Unexpected legacy failure', (error as Error)?.stack);
      respond.json(mcpError.httpStatus, errorResponse(id, mcpError.httpStatus === 200 ? toLegacyError(mcpError) : mcpError));
    }
  }

  /** GET: the session's standalone stream for list changes, resource updates and session-level logs. */
  handleGet(exchange: LegacyExchange, respond: LegacyResponder): void {
    try {
      const session = this.sessionOf(exchange);
      const channel = respond.stream();
      if (!session.attachStream(channel)) {
        channel.abandon();
        throw sessionError(409, 'Conflict: this session already has an open stream');
      }
      exchange.response.once('close', () => session.detachStream(channel));
      const keepAlive = setInterval(() => channel.keepAlive(), this.options.keepAliveMs);
      keepAlive.unref();
      exchange.response.once('close', () => clearInterval(keepAlive));
    } catch (error) {
      const mcpError = error as McpError;
      respond.json(mcpError.httpStatus, errorResponse(undefined, mcpError));
    }
  }

  /** DELETE: ends the session; later requests with its id get 404. */
  handleDelete(exchange: LegacyExchange, respond: LegacyResponder): void {
    try {
      const session = this.sessionOf(exchange);
      this.sessions.delete(session.id, 'The client ended the session');
      respond.empty(204);
    } catch (error) {
      const mcpError = error as McpError;
      respond.json(mcpError.httpStatus, errorResponse(undefined, mcpError));
    }
  }

  private initialize(exchange: LegacyExchange, message: JsonRpcRequest, respond: LegacyResponder): void {
    const params = message.params ?? {};
    const requested = params.protocolVersion;
    const capabilities = params.capabilities;
    if (typeof requested !== 'string' || typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
      respond.json(200, errorResponse(message.id, McpError.invalidParams(
        `Invalid params: initialize needs protocolVersion and capabilities; this server speaks ${[LATEST_LEGACY_VERSION, ...LEGACY_PROTOCOL_VERSIONS.slice(1)].join(', ')} and 2026-07-28`,
      )));
      return;
    }
    // Negotiation never fails: an unknown version is answered with the latest legacy one (the client decides).
    const version = LEGACY_VERSIONS.has(requested) ? requested : LATEST_LEGACY_VERSION;
    const clientInfo = typeof params.clientInfo === 'object' && params.clientInfo !== null ? (params.clientInfo as never) : undefined;
    const session = this.sessions.create(version, capabilities as McpClientCapabilities, clientInfo, exchange.principal);
    if (!session) {
      respond.json(503, errorResponse(message.id, new McpError(McpErrorCode.InternalError, 'Too many sessions; retry later')));
      return;
    }
    const result: JsonObject = {
      protocolVersion: version,
      capabilities: this.discover.capabilities(),
      serverInfo: this.options.serverInfo,
      ...(this.options.instructions !== undefined && { instructions: this.options.instructions }),
    };
    respond.json(200, { jsonrpc: '2.0', id: message.id, result }, { 'Mcp-Session-Id': session.id });
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

  /** After `initialize`, the header names the negotiated version; absent means the session's (B-HDR-01). */
  private checkVersionHeader(request: IncomingMessage, session: LegacySession): void {
    const version = request.headers[McpHeaders.protocolVersion];
    if (version !== undefined && version !== session.protocolVersion) {
      throw sessionError(400, `Bad Request: unsupported MCP-Protocol-Version '${String(version)}' for this session`);
    }
  }

  private notification(session: LegacySession, method: string, params: JsonObject): void {
    if (method === 'notifications/initialized') session.initialized = true;
    else if (method === 'notifications/cancelled') session.cancelCall(params.requestId, params.reason);
    // notifications/roots/list_changed and unknown notifications: nothing to do.
  }

  /** Methods that only exist on this wire and only touch the session. */
  private sessionMethod(session: LegacySession, message: JsonRpcRequest): JsonObject | undefined {
    const params = message.params ?? {};
    switch (message.method) {
      case 'ping':
        return {};
      case 'logging/setLevel': {
        if (typeof params.level !== 'string' || !LOG_LEVELS.has(params.level)) {
          throw McpError.invalidParams(`Invalid params: level must be one of ${MCP_LOG_LEVELS.join(', ')}`);
        }
        session.logLevel = params.level as McpLogLevel;
        return {};
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        if (!('resources' in this.discover.capabilities())) throw McpError.methodNotFound(message.method);
        if (typeof params.uri !== 'string' || !URI.test(params.uri)) throw McpError.invalidParams('Invalid params: uri must be an absolute URI');
        if (message.method === 'resources/subscribe') session.subscriptions.add(params.uri);
        else session.subscriptions.delete(params.uri);
        return {};
      }
      case 'initialize':
        throw McpError.invalidRequest('Invalid Request: this session is already initialized');
      case 'subscriptions/listen':
        throw McpError.methodNotFound(message.method);
      default:
        return undefined;
    }
  }

  private async dispatch(exchange: LegacyExchange, session: LegacySession, message: JsonRpcRequest, respond: LegacyResponder) {
    const channel = respond.channel();
    const abort = new AbortController();
    const params = message.params ?? {};
    const meta = typeof params._meta === 'object' && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
    const progressToken = meta.progressToken;
    const scope: McpRequestScope = {
      id: message.id,
      method: message.method,
      params,
      meta: {
        protocolVersion: session.protocolVersion,
        clientCapabilities: session.capabilities,
        clientInfo: session.clientInfo,
        logLevel: session.logLevel,
        progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
        raw: meta,
      },
      signal: abort.signal,
      channel,
      httpRequest: exchange.frameworkRequest,
      httpResponse: exchange.frameworkResponse,
      principal: exchange.principal,
      wire: 'legacy',
      liveRequests: new SessionClientRequests(session, channel, abort.signal, this.options.clientRequestTimeoutMs),
    };
    // On this wire a dropped connection is not a cancellation (B-HTTP-03): only notifications/cancelled aborts.
    session.trackCall(message.id as JsonRpcId, abort);
    const untrack = this.calls.track(message.id, channel, abort, { timeout: true, onShutdown: respond.onShutdown });
    try {
      const outcome = await this.dispatcher.execute(scope);
      if (outcome.ok) channel.respond({ jsonrpc: '2.0', id: message.id, result: toLegacyResult(message.method, outcome.result) });
      else channel.respond(errorResponse(message.id, toLegacyError(outcome.error)));
    } finally {
      untrack();
      session.untrackCall(message.id);
    }
  }
}
