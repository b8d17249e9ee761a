import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Subscription } from 'rxjs';
import { MCP_MODULE_OPTIONS_EXTRAS } from '../../config/mcp-extras.constants.js';
import type { McpModuleExtras } from '../../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import type { McpError } from '../../protocol/mcp.error.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import type { CapturedBody } from './captured-body.interface.js';
import { MCP_CAPTURED_ROUTE, MCP_RAW_BODY } from './raw-body.constants.js';
import { readRawBody } from './raw-body.reader.js';
import { McpRequestGate } from './request-gate.service.js';
import { payloadTooLarge, refuseUpload } from './upload-refusal.writer.js';

/** A Node request as Express hands it on (`path` is Express's parse of the URL, the one its router matches). */
type CapturingRequest = IncomingMessage & { [MCP_RAW_BODY]?: CapturedBody; path?: string };
type HiddenBodyHeaders = NonNullable<CapturedBody['hidden']>;

/** What the capture uses of an Express route layer: the router's own matcher, and the route's handlers. */
interface ExpressLayer {
  match(path: string): unknown;
  route?: { methods?: Record<string, boolean>; stack?: Array<{ handle?: unknown }> };
}

type FastifyLikeRequest = { raw: CapturingRequest };
type FastifyLikeReply = { raw: ServerResponse; hijack(): unknown };
type PreParsingHook = (
  request: FastifyLikeRequest,
  reply: FastifyLikeReply,
  payload: IncomingMessage,
  done: (error: null, payload: IncomingMessage) => void,
) => void;

/** The route options Fastify's `onRoute` hooks see (and may change). */
interface FastifyRouteOptions {
  method: string | string[];
  handler?: unknown;
  config?: Record<string, unknown>;
  preParsing?: PreParsingHook | PreParsingHook[];
}

interface FastifyLike {
  addHook(name: 'onRoute', hook: (route: FastifyRouteOptions) => void): void;
  addHook(name: 'preValidation', hook: (request: FastifyLikeRequest, reply: unknown, done: () => void) => void): void;
}

/** The headers that make Fastify parse a body. */
const BODY_HEADERS: readonly (keyof HiddenBodyHeaders)[] = [
  'content-type',
  'content-length',
  'transfer-encoding',
  'content-encoding',
];

/**
 * Reads the body of POSTs to the MCP endpoint before the framework's parsers do, on both adapters, once the checks
 * that need no body passed (`McpRequestGate`: Host/Origin, then the bearer token with `auth`): a refused request is
 * answered at once, its body read only to be thrown away, within bounds (`refuseUpload`). Owning the bytes
 * is what lets the endpoint answer a malformed body with JSON-RPC `-32700`, an oversized one with its own limit
 * (413), too deep a nesting with `-32600` and a wrong Content-Type with 415 — identically on Express and Fastify —
 * while the request still flows through Nest's middleware, guards and routing as usual.
 *
 * Which requests are the endpoint's is decided by the router itself, never by comparing paths: every spelling the
 * router sends to the endpoint (case, trailing slash, percent-encoding, global prefix and its exclusions, URI
 * versions, RouterModule paths, the router's own settings) is captured, and nothing else is.
 * - Fastify: an `onRoute` hook gives the endpoint's POST route a route-level `preParsing` hook, which only runs for
 *   requests Fastify routed there.
 * - Express parses bodies before it routes, so the capture is a middleware ahead of the parsers that asks the
 *   endpoint's own route layers (found by the marker on their handler, see `MCP_CAPTURED_ROUTE`) whether they match.
 *
 * A request that reaches the endpoint without a captured body anyway (a URL rewritten after this middleware ran, an
 * adapter that is neither) is refused by the endpoint, never served from what the framework parsed.
 */
@Injectable()
export class BodyCaptureInstaller implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('McpBodyCapture');
  private readonly subscription: Subscription;
  /** Express: the route layers of the endpoint's POST, known once Nest has registered the routes. */
  private expressRoutes: readonly ExpressLayer[] = [];
  /** Fastify: how many routes of the endpoint got the capture hook. */
  private fastifyRoutes = 0;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly options: McpResolvedOptions,
    @Inject(MCP_MODULE_OPTIONS_EXTRAS) private readonly extras: Required<McpModuleExtras>,
    private readonly gate: McpRequestGate,
    private readonly telemetry: McpTelemetry,
  ) {
    // The adapter exists before Nest registers its body parsers and routes: both hooks go in ahead of them.
    this.subscription = adapterHost.init$.subscribe(() => {
      const adapter = adapterHost.httpAdapter;
      if (!adapter) return;
      if (adapter.getType() === 'fastify') this.installFastify(adapter.getInstance());
      else this.installExpress(adapter);
    });
  }

  /** The routes are registered now: find the endpoint's, and say so loudly when there is none to capture for. */
  onApplicationBootstrap(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    const type = adapter.getType();
    if (type === 'fastify') {
      if (this.fastifyRoutes === 0) this.logUncapturable(type);
      return;
    }
    this.expressRoutes = endpointLayers(
      adapter.getInstance<{ router?: { stack?: ExpressLayer[] } }>()?.router?.stack,
      this.extras.path,
    );
    if (this.expressRoutes.length === 0) this.logUncapturable(type);
  }

  onModuleDestroy(): void {
    this.subscription.unsubscribe();
  }

  private installExpress(adapter: { use: (...args: unknown[]) => unknown }): void {
    adapter.use((request: CapturingRequest, response: ServerResponse, next: () => void) => {
      if (!this.isExpressEndpoint(request)) return next();
      // Set by Express before any middleware; the endpoint's answers name no framework, whatever answers them: the
      // endpoint, this early 413, or a guard that refuses a GET or DELETE before the controller runs.
      response.removeHeader('X-Powered-By');
      if (request.method !== 'POST') return next();
      const limit = this.options.maxBodyBytes;
      const receivedAt = this.receivedAt();
      // Host/Origin and the bearer token first: a refused request is answered before a byte of its body is read.
      this.gate.admit(request, (verdict) => {
        if (!verdict.ok) return this.answerRefusal(request, request, response, verdict.error, receivedAt);
        readRawBody(request, request.headers['content-length'], limit, (raw) => {
          // Answered here: Express's own parsers would otherwise start reading the rest of the upload.
          if (!raw.ok && raw.reason === 'too-large')
            return this.answerRefusal(request, request, response, payloadTooLarge(limit), receivedAt);
          request[MCP_RAW_BODY] = {
            raw,
            contentType: request.headers['content-type'],
            contentEncoding: request.headers['content-encoding'],
            caller: verdict.caller,
            receivedAt,
          };
          // The stream is consumed now, so Express's body parsers skip this request.
          next();
        });
      });
    });
  }

  /** Whether this request's path is the endpoint's, by the matcher of the endpoint's own POST route (GET and DELETE share it). */
  private isExpressEndpoint(request: CapturingRequest): boolean {
    const routes = this.expressRoutes;
    if (routes.length === 0) return false;
    const path = request.path ?? pathnameOf(request.url);
    for (const layer of routes) {
      try {
        if (layer.match(path)) return true;
      } catch {
        // A malformed percent-escape in a route parameter: the router refuses the request itself.
      }
    }
    return false;
  }

  /**
   * Fastify: the endpoint's POST route reads its body in a route-level `preParsing` hook, and hides the body headers
   * from Fastify until `preValidation` so that it parses nothing (a POST without Content-Type and length has no body
   * to parse for it); they are back in place before guards, interceptors and the endpoint run.
   */
  private installFastify(fastify: FastifyLike): void {
    fastify.addHook('onRoute', (route) => {
      if (!this.isFastifyEndpoint(route)) return;
      this.fastifyRoutes++;
      route.preParsing = [...(route.preParsing === undefined ? [] : [route.preParsing].flat()), this.captureFastify];
    });
    // Global, and added before any of the application's: headers are back before every other preValidation hook.
    fastify.addHook('preValidation', (request, _reply, done) => {
      const hidden = request.raw[MCP_RAW_BODY]?.hidden;
      if (hidden) Object.assign(request.raw.headers, hidden);
      done();
    });
  }

  private isFastifyEndpoint(route: FastifyRouteOptions): boolean {
    if (![route.method].flat().includes('POST')) return false;
    const path = this.extras.path;
    // Nest hands the route config (`@RouteConfig`) on even when it wraps the handler (paths with parameters).
    return route.config?.[MCP_CAPTURED_ROUTE] === path || markerOf(route.handler) === path;
  }

  private readonly captureFastify: PreParsingHook = (request, reply, payload, done) => {
    const raw = request.raw;
    const limit = this.options.maxBodyBytes;
    const receivedAt = this.receivedAt();
    // Answered here, before guards and interceptors, as on Express; Fastify stops at a hijacked reply.
    const refuse = (error: McpError) => {
      reply.hijack();
      this.answerRefusal(payload, raw, reply.raw, error, receivedAt);
      done(null, payload);
    };
    // Host/Origin and the bearer token first: a refused request is answered before a byte of its body is read.
    this.gate.admit(raw, (verdict) => {
      if (!verdict.ok) return refuse(verdict.error);
      readRawBody(payload, raw.headers['content-length'], limit, (body) => {
        if (!body.ok && body.reason === 'too-large') return refuse(payloadTooLarge(limit));
        raw[MCP_RAW_BODY] = { raw: body, ...hideBodyHeaders(raw.headers), caller: verdict.caller, receivedAt };
        done(null, payload);
      });
    });
  };

  /** When the request reached the endpoint, for a refusal's span and duration; no clock read with telemetry off. */
  private receivedAt(): number | undefined {
    return this.telemetry.available ? performance.now() : undefined;
  }

  /** Answers a request refused before its body was read (`refuseUpload`), and records the refusal (telemetry). */
  private answerRefusal(
    upload: Readable,
    request: IncomingMessage,
    response: ServerResponse,
    error: McpError,
    receivedAt: number | undefined,
  ): void {
    refuseUpload(upload, response, error, this.options.maxBodyBytes);
    this.telemetry.recordRefusal({ incoming: request, error, receivedAt });
  }

  private logUncapturable(adapter: string): void {
    this.logger.error(
      `No POST route of the MCP endpoint "${this.extras.path}" was found in the ${adapter} router, so its request bodies ` +
        'cannot be captured: every POST to the endpoint will be refused with 500. nest-mcp reads bodies on the Express ' +
        'and Fastify adapters of @nestjs/platform-express and @nestjs/platform-fastify.',
    );
  }
}

/**
 * Takes the body headers away from Fastify until `preValidation`, and says what they were. Set to undefined rather
 * than deleted: Fastify only tests for undefined, and a delete would turn the headers object into a slow dictionary
 * for everyone reading it after.
 */
function hideBodyHeaders(
  headers: IncomingMessage['headers'],
): Pick<CapturedBody, 'contentType' | 'contentEncoding' | 'hidden'> {
  const hidden: HiddenBodyHeaders = {};
  for (const name of BODY_HEADERS) {
    const value = headers[name];
    if (value !== undefined) {
      hidden[name] = value;
      headers[name] = undefined;
    }
  }
  return { contentType: hidden['content-type'], contentEncoding: hidden['content-encoding'], hidden };
}

/** The POST route layers of the endpoint at `path`, by the marker Nest copied from the controller method. */
function endpointLayers(stack: readonly ExpressLayer[] | undefined, path: string): ExpressLayer[] {
  return (stack ?? []).filter(
    (layer) =>
      layer.route?.methods?.post === true &&
      (layer.route.stack ?? []).some((handler) => markerOf(handler.handle) === path),
  );
}

function markerOf(handler: unknown): unknown {
  return typeof handler === 'function' ? Reflect.getMetadata(MCP_CAPTURED_ROUTE, handler) : undefined;
}

/** `/a/b?x` → `/a/b`, for a request Express has not decorated. */
function pathnameOf(url: string | undefined): string {
  const value = url ?? '/';
  const query = value.indexOf('?');
  return query < 0 ? value : value.slice(0, query);
}
