import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { IncomingMessage as IncomingRpc } from '../protocol/json-rpc-message.parser.js';
import type { JsonRpcRequest } from '../protocol/json-rpc.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpHeaders } from '../protocol/meta-keys.constants.js';
import { ResponseChannel } from '../protocol/response-channel.js';
import { errorResponse } from '../server/mcp.dispatcher.js';
import type { CapturedBody } from '../transport/http/captured-body.interface.js';
import { MCP_RAW_BODY } from '../transport/http/raw-body.constants.js';
import { toLegacyError } from './legacy-result.shaper.js';
import type { LegacySession } from './legacy-session.js';
import { SESSION_RETRY_AFTER_SECONDS } from './legacy-session.constants.js';
import { McpSessionStore, type SessionRefusal } from './legacy-session.store.js';
import { McpLegacyWireService, type LegacyHandshake } from './legacy-wire.service.js';

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

/** The length of the POST body the transport captured (every MCP POST has one), for the `initialize` size check. */
function capturedBodyBytes(request: IncomingMessage): number | undefined {
  const raw = (request as IncomingMessage & { [MCP_RAW_BODY]?: CapturedBody })[MCP_RAW_BODY]?.raw;
  return raw?.ok ? raw.body.length : undefined;
}

const sessionError = (status: number, message: string) => new McpError(McpErrorCode.InvalidRequest, message, undefined, status);

/**
 * The 2025-11-25 wire on the same endpoint (DESIGN D7, BACKCOMPAT): `initialize` and sessions, the GET stream,
 * DELETE, `ping`, `logging/setLevel`, `resources/subscribe`, cancellation by notification, and the client's answers
 * to server→client requests. What a session does is `McpLegacyWireService` (shared with stdio); this class adds the
 * HTTP part: session ids, the version header, status codes and the GET stream.
 */
@Injectable()
export class McpLegacyHttpHandler {
  private readonly logger = new Logger('McpLegacyHttp');

  constructor(
    private readonly sessions: McpSessionStore,
    private readonly wire: McpLegacyWireService,
    private readonly options: McpResolvedOptions,
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
        this.wire.notification(session, incoming.message.method, incoming.message.params ?? {});
        respond.empty(202);
        return;
      }
      const local = this.wire.sessionMethod(session, incoming.message);
      if (local) {
        respond.json(200, { jsonrpc: '2.0', id: incoming.message.id, result: local });
        return;
      }
      await this.wire.execute(session, incoming.message, respond.channel(), {
        httpRequest: exchange.frameworkRequest,
        httpResponse: exchange.frameworkResponse,
        principal: exchange.principal,
        caller: { principal: exchange.principal, address: exchange.request.socket.remoteAddress },
        onShutdown: respond.onShutdown,
      });
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
      // Checked before the stream commits its 200, so the refusal keeps its status.
      if (session.hasOpenStream) throw sessionError(409, 'Conflict: this session already has an open stream');
      const channel = respond.stream();
      session.attachStream(channel);
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
    let handshake: LegacyHandshake;
    try {
      handshake = this.wire.readHandshake(message.params ?? {}, capturedBodyBytes(exchange.request));
    } catch (error) {
      const mcpError = error as McpError;
      respond.json(mcpError.httpStatus, errorResponse(message.id, mcpError));
      return;
    }
    const created = this.sessions.create(handshake, { principal: exchange.principal, address: exchange.request.socket.remoteAddress });
    if ('refused' in created) {
      const refusal = this.refusal(created.refused);
      respond.json(refusal.httpStatus, errorResponse(message.id, refusal), { 'Retry-After': String(SESSION_RETRY_AFTER_SECONDS) });
      return;
    }
    const result = this.wire.initializeResult(handshake.protocolVersion);
    respond.json(200, { jsonrpc: '2.0', id: message.id, result }, { 'Mcp-Session-Id': created.session.id });
  }

  /**
   * A refused `initialize`: 503 when the server is full (sessions or their bytes), 429 when this caller already holds
   * its share — it can end one of its sessions (DELETE) instead of waiting. Both name the limit and its option.
   */
  private refusal(refused: SessionRefusal): McpError {
    const data = { retryAfterSeconds: SESSION_RETRY_AFTER_SECONDS };
    const { maxSessions, maxSessionBytes, maxSessionsPerPrincipal, maxSessionsPerAddress } = this.options;
    switch (refused) {
      case 'total':
        return new McpError(McpErrorCode.InternalError, `Too many sessions on this server (limit ${maxSessions}, option maxSessions); retry later`, data, 503);
      case 'memory':
        return new McpError(
          McpErrorCode.InternalError,
          `Sessions hold all the memory this server allows them (limit ${maxSessionBytes} bytes, option maxSessionBytes); retry later`,
          data,
          503,
        );
      case 'principal':
        return new McpError(
          McpErrorCode.InternalError,
          `Too many sessions for this principal (limit ${maxSessionsPerPrincipal}, option maxSessionsPerPrincipal); end one with DELETE or retry later`,
          data,
          429,
        );
      case 'address':
        return new McpError(
          McpErrorCode.InternalError,
          `Too many sessions from this address (limit ${maxSessionsPerAddress}, option maxSessionsPerAddress); end one with DELETE or retry later`,
          data,
          429,
        );
    }
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
}
