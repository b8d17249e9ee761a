import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { parseJsonMessage } from '../../protocol/json-nesting.util.js';
import { McpAuthenticator } from '../../auth/mcp-authenticator.service.js';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import { McpErrorCode } from '../../protocol/error-codes.enum.js';
import { parseJsonRpcMessage, readableId } from '../../protocol/json-rpc-message.parser.js';
import type { JsonRpcId, JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import { McpError } from '../../protocol/mcp.error.js';
import { McpCallRunner } from '../../server/call.runner.js';
import { McpModernWire } from '../../server/modern-wire.profile.js';
import { McpPlaygroundPages } from '../../playground/playground.pages.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import type { CapturedBody } from './captured-body.interface.js';
import { closeAfter, closeAfterDeadline } from './close-after.util.js';
import { HttpCallPort, type HttpCallRequest, httpQueueBounds } from './http-call.port.js';
import { edgeRefusal } from './edge-refusal.util.js';
import type { HttpExchange } from './http-exchange.interface.js';
import { McpLegacyHttpHandler } from './legacy-session-http.handler.js';
import {
  checkHeadersAgainstBody,
  checkParamHeadersAgainstBody,
  checkRouteNameHeader,
  requireStandardHeaders,
} from './mcp-headers.validator.js';
import { MCP_RAW_BODY } from './raw-body.constants.js';
import { type HttpCaller, McpRequestGate } from './request-gate.service.js';
import { type AcceptedMediaTypes, writeDocument, writeEmpty, writeError } from './response.writer.js';
import { payloadTooLarge } from './upload-refusal.writer.js';
import { classifyWire, isLegacySessionVerb, isPlaygroundRequest } from './wire.classifier.js';

const ANONYMOUS: HttpCaller = {};

/**
 * The Streamable HTTP transport of the 2026-07-28 wire: every check of spec 2026-07-28:
 * basic/transports/streamable-http in the order of ADR 0009 (Origin → bearer token → body → JSON-RPC → headers → `_meta` → header/body
 * agreement → version → method → the route's own needs; docs/http-transport.md, "The order of the checks"), then hands
 * the call to `McpCallRunner` with a port that writes its channel to the response: the first message decides between
 * JSON and SSE. What a method needs of HTTP (an event stream, parameter headers) comes from its route
 * (`McpModernWire.route`): no method is special-cased here.
 */
@Injectable()
export class McpHttpTransport implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpHttpTransport');
  private shuttingDown = false;
  private uncapturedLogged = false;
  /** Writes 2026-07-28 calls to their responses (with `auth`: authorization failures with their challenge). */
  private readonly port: HttpCallPort;
  /** The playground's documents, when it is on. */
  private readonly playground?: McpPlaygroundPages;

  constructor(
    private readonly wire: McpModernWire,
    private readonly runner: McpCallRunner,
    private readonly options: McpResolvedOptions,
    private readonly legacy: McpLegacyHttpHandler,
    private readonly adapterHost: HttpAdapterHost,
    private readonly gate: McpRequestGate,
    authenticator: McpAuthenticator,
    playground: McpPlaygroundPages,
    private readonly telemetry: McpTelemetry,
  ) {
    this.playground = playground.enabled ? playground : undefined;
    this.port = new HttpCallPort(httpQueueBounds(options), authenticator.enabled);
  }

  /**
   * Says once, at startup, what the Host/Origin check lets through and which option changes it. Only when there is an
   * HTTP server: a stdio application has none (and its stdout belongs to the protocol).
   */
  onApplicationBootstrap(): void {
    if (!this.adapterHost.httpAdapter) return;
    this.logger.log(this.gate.describe());
    if (!this.playground) return;
    const where = process.env.NODE_ENV === 'production' ? ' although NODE_ENV is production' : '';
    const message =
      `Playground on${where}: open the endpoint in a browser to list and call this server's tools, prompts and ` +
      'resources (docs/playground.md). Turn it off with the option playground: false (NODE_ENV=production does by default).';
    // Under a name of its own: the transport's startup line is the Host policy alone.
    const logger = new Logger('McpPlayground');
    if (where) logger.warn(message);
    else logger.log(message);
  }

  /**
   * GET and DELETE belong to 2025-11-25 sessions (the standalone stream, session termination). Without a session id,
   * or with `legacyWire: false`, they are 405, as on a 2026-only server: the 2026 wire has neither. With the
   * playground on, a browser's GET (`Accept: text/html`) gets the playground instead.
   */
  async handleOtherVerb(exchange: HttpExchange, verb: 'GET' | 'DELETE'): Promise<void> {
    let caller: HttpCaller;
    try {
      // The playground before the bearer check (Host/Origin still first): a navigation carries no token, and the page
      // holds nothing of the server (it asks the endpoint with the user's token like any client; docs/playground.md,
      // "Security").
      if (verb === 'GET' && this.playground && isPlaygroundRequest(exchange.request.headers)) {
        const forbidden = this.gate.hostOriginRefusal(exchange.request);
        if (forbidden) throw forbidden;
        writeDocument(exchange.response, this.playground.documentFor(exchange.request.url));
        return;
      }
      // Host/Origin and the token before the verb is judged: without a token, nothing about the endpoint is told.
      caller = (await this.gate.caller(exchange.request)) ?? this.unauthenticated(exchange);
    } catch (error) {
      const mcpError = error instanceof McpError ? error : this.unexpected(error);
      writeError(exchange.response, undefined, mcpError);
      return;
    }
    if (!this.options.legacyWire || !isLegacySessionVerb(exchange.request.headers)) {
      writeEmpty(exchange.response, 405, { Allow: 'POST' });
      return;
    }
    const legacyExchange = { ...exchange, ...caller };
    if (verb === 'GET') this.legacy.handleGet(legacyExchange);
    else this.legacy.handleDelete(legacyExchange);
  }

  /** Serves one POST. Never throws: every failure becomes a JSON-RPC error with its HTTP status. */
  async handlePost(exchange: HttpExchange): Promise<void> {
    const { request, response } = exchange;
    if (this.shuttingDown) closeAfter(response);
    let id: JsonRpcId | undefined;
    /** The JSON-RPC request, once the body was read as one: what telemetry names a refusal by. */
    let rpc: JsonRpcRequest | undefined;
    /** Set when the request goes on to the runner (or the 2025-11-25 handler), which records what happens next. */
    let handedOver = false;
    try {
      const captured = (request as IncomingMessage & { [MCP_RAW_BODY]?: CapturedBody })[MCP_RAW_BODY];
      // The capture ran Host/Origin and the bearer check before it read the body (ADR 0009), and its verdict travels
      // with the body. A POST it never saw gets those checks here first, then its 500: the token still comes first.
      if (!captured) {
        await this.gate.caller(request);
        throw this.uncaptured(request);
      }
      const caller = captured.caller ?? this.unauthenticated(exchange);
      const body = this.decodeBody(captured);
      id = readableId(body);
      const accepted = acceptedMediaTypes(request.headers.accept);
      const incoming = parseJsonRpcMessage(body);
      if (this.options.legacyWire && classifyWire(request.headers, incoming) === 'legacy') {
        handedOver = true;
        await this.legacy.handlePost({ ...exchange, ...caller }, incoming, accepted);
        return;
      }
      if (incoming.kind === 'response') {
        throw McpError.invalidRequest('Invalid Request: responses are only accepted on 2025-11-25 sessions');
      }
      if (incoming.kind === 'notification') {
        // No client→server notification is defined for HTTP on this wire; well-formed ones are accepted and ignored.
        writeEmpty(response, 202);
        return;
      }
      const message = incoming.message;
      rpc = message;
      // A core method's Mcp-Name is a standard header, checked before _meta; an extension's once its route exists.
      const declared = this.wire.declaredRoute(message.method);
      const nameField = declared?.extension === undefined ? declared?.nameParam : undefined;
      requireStandardHeaders(request, message, nameField);
      const meta = this.wire.preamble(message.params, (read) =>
        checkHeadersAgainstBody(request, message, read.protocolVersion, nameField),
      );
      const route = this.wire.route(message.method);
      if (route.delivery === 'stream' && !accepted.sse) {
        throw new McpError(
          McpErrorCode.InvalidRequest,
          `Not Acceptable: ${message.method} answers with text/event-stream`,
          undefined,
          406,
        );
      }
      if (route.extension !== undefined && route.nameParam !== undefined)
        checkRouteNameHeader(request, message.params, route.nameParam);
      const paramHeaders = route.paramHeaders?.(message.params, caller);
      if (paramHeaders !== undefined && paramHeaders.length > 0)
        checkParamHeadersAgainstBody(request, message.params?.arguments, paramHeaders);

      // Admitted by the calls-in-flight caps before anything is built for it: a refusal (429/503) is thrown, below.
      // The runner records it (a span of its own), and everything after.
      handedOver = true;
      await this.runner.run<HttpCallRequest>(
        {
          origin: 'http',
          wire: this.wire,
          id: message.id,
          method: message.method,
          params: message.params ?? {},
          meta,
          route,
          principal: caller.principal,
          accessToken: caller.accessToken,
          remoteAddress: request.socket.remoteAddress,
          httpRequest: exchange.frameworkRequest,
          httpResponse: exchange.frameworkResponse,
          admit: true,
          incoming: request,
          response,
          accepted,
        },
        this.port,
      );
    } catch (error) {
      const mcpError = error instanceof McpError ? error : this.unexpected(error);
      writeError(response, id, mcpError);
      // Recorded here (the capture records its own refusals), named by the method once the body was read.
      if (!handedOver && this.telemetry.available)
        this.telemetry.recordRefusal(
          edgeRefusal(request, mcpError, rpc, rpc !== undefined && this.wire.findRoute(rpc.method) !== undefined),
        );
    }
  }

  /** Without `auth`: the `principal` option's answer for the framework's request, if it is set. */
  private unauthenticated(exchange: HttpExchange): HttpCaller {
    const principal = this.options.principal?.(exchange.frameworkRequest);
    return principal === undefined ? ANONYMOUS : { principal };
  }

  /**
   * Drains the calls in flight (`McpCallRunner.drain`) before Nest closes the HTTP server (which waits for open
   * connections): their signals abort, they answer within `shutdownTimeoutMs`, and their connections close after the
   * answer.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    // The deadline holds for connections too: whatever is still open then (a reader that never drains its
    // response, a client that connected and never sent a request) is closed, so Nest's server.close() returns.
    const server = this.adapterHost.httpAdapter?.getHttpServer?.() as { closeAllConnections?: () => void } | undefined;
    // A short grace after the deadline lets the drain's own -32603 answers reach their clients first.
    closeAfterDeadline(() => server?.closeAllConnections?.(), this.options.shutdownTimeoutMs);
    await this.runner.drain();
  }

  /**
   * Decodes the body the capture read (`BodyCaptureInstaller`). A request it did not see never gets here: what the
   * framework parsed has passed none of the endpoint's checks (limit, depth, Content-Type, encoding).
   */
  private decodeBody(captured: CapturedBody): unknown {
    if (!isJsonContentType(captured.contentType)) {
      throw new McpError(
        McpErrorCode.InvalidRequest,
        'Unsupported Media Type: Content-Type must be application/json',
        undefined,
        415,
      );
    }
    if (captured.contentEncoding && captured.contentEncoding.toLowerCase() !== 'identity') {
      throw new McpError(
        McpErrorCode.InvalidRequest,
        'Unsupported Media Type: Content-Encoding is not supported',
        undefined,
        415,
      );
    }
    if (!captured.raw.ok) {
      // The capture answers oversized uploads itself (`refuseUpload`); this only guards against a capture that did not.
      if (captured.raw.reason === 'too-large') throw payloadTooLarge(this.options.maxBodyBytes);
      throw McpError.invalidRequest('Invalid Request: the body could not be read');
    }
    const bytes = captured.raw.body;
    // Valid UTF-8 (checked natively) and no byte order mark, which JSON (RFC 8259) lets parsers refuse.
    if (!isUtf8(bytes) || (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) {
      throw McpError.parseError('Parse error: the body is not valid UTF-8 JSON');
    }
    return parseJsonMessage(bytes.toString('utf8'), this.options.maxJsonDepth);
  }

  /** 500 for a request that reached the endpoint around the body capture; the first one is logged with the why. */
  private uncaptured(request: IncomingMessage): McpError {
    if (!this.uncapturedLogged) {
      this.uncapturedLogged = true;
      this.logger.error(
        `A POST to ${JSON.stringify((request.url ?? '').slice(0, 200))} reached the MCP endpoint but its body was not captured, ` +
          'so it was refused with 500 (logged once). nest-mcp reads the body of the requests the router sends to the endpoint ' +
          "before the framework's parsers do; this one got there otherwise: a URL rewritten by middleware after the capture " +
          "ran (rewrite it before Nest's adapter sees the request, e.g. Fastify's rewriteUrl), or an HTTP adapter the capture " +
          'cannot hook into (see the McpBodyCapture error at startup).',
      );
    }
    return new McpError(
      McpErrorCode.InternalError,
      'Internal error: the request body was not captured by the MCP endpoint, so the request is refused (the server log says why)',
      undefined,
      500,
    );
  }

  private unexpected(error: unknown): McpError {
    this.logger.error('Unexpected transport failure', (error as Error)?.stack ?? String(error));
    return McpError.internal();
  }
}

/**
 * Wraps a header parser so that the last header value and its result are kept: clients send the same Content-Type
 * and Accept on every request. A parser that throws caches nothing.
 */
function lastValueCached<T>(parse: (header: string) => T): (header: string) => T {
  let last: { header: string; parsed: T } | undefined;
  return (header) => {
    if (last?.header === header) return last.parsed;
    const parsed = parse(header);
    last = { header, parsed };
    return parsed;
  };
}

const isJsonMediaType = lastValueCached(
  (contentType) => contentType.split(';', 1)[0].trim().toLowerCase() === 'application/json',
);

function isJsonContentType(contentType: string | undefined): boolean {
  return contentType ? isJsonMediaType(contentType) : false;
}

const ANY_MEDIA_TYPE: AcceptedMediaTypes = { json: true, sse: true };
const parseAcceptCached = lastValueCached(parseAccept);

/** Reads the Accept header; absent means anything. Neither JSON nor SSE acceptable → 406. */
function acceptedMediaTypes(accept: string | undefined): AcceptedMediaTypes {
  return accept ? parseAcceptCached(accept) : ANY_MEDIA_TYPE;
}

function parseAccept(accept: string): AcceptedMediaTypes {
  const types = accept.split(',').map((part) => part.split(';', 1)[0].trim().toLowerCase());
  const any = types.includes('*/*');
  const accepted = {
    json: any || types.includes('application/json') || types.includes('application/*'),
    sse: any || types.includes('text/event-stream') || types.includes('text/*'),
  };
  if (!accepted.json && !accepted.sse) {
    throw new McpError(
      McpErrorCode.InvalidRequest,
      'Not Acceptable: Accept must include application/json and text/event-stream',
      undefined,
      406,
    );
  }
  return accepted;
}
