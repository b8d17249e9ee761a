import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import { MCP_MODULE_OPTIONS_EXTRAS } from '../../config/mcp-extras.constants.js';
import type { McpModuleExtras } from '../../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import type { CapturedBody } from './captured-body.interface.js';
import { MCP_RAW_BODY } from './raw-body.constants.js';
import { readRawBody } from './raw-body.reader.js';

type CapturingRequest = IncomingMessage & { [MCP_RAW_BODY]?: CapturedBody };
type FastifyLikeRequest = { raw: CapturingRequest };
type HiddenBodyHeaders = NonNullable<CapturedBody['hidden']>;

/** The headers that make Fastify parse a body. */
const BODY_HEADERS: readonly (keyof HiddenBodyHeaders)[] = ['content-type', 'content-length', 'transfer-encoding', 'content-encoding'];

/**
 * Reads the body of POSTs to the MCP endpoint before the framework's JSON parser does, on both adapters.
 * Owning the bytes is what lets the endpoint answer a malformed body with JSON-RPC `-32700`, an oversized one with
 * its own limit (413), and a wrong Content-Type with 415 — identically on Express and Fastify — while the request
 * still flows through Nest's middleware, guards and routing as usual.
 *
 * It hooks in as soon as the HTTP adapter exists, which is before Nest registers its body parsers.
 */
@Injectable()
export class BodyCaptureInstaller implements OnModuleDestroy {
  private readonly subscription: Subscription;
  private fullPath?: string;

  constructor(
    adapterHost: HttpAdapterHost,
    private readonly applicationConfig: ApplicationConfig,
    private readonly options: McpResolvedOptions,
    @Inject(MCP_MODULE_OPTIONS_EXTRAS) private readonly extras: Required<McpModuleExtras>,
  ) {
    this.subscription = adapterHost.init$.subscribe(() => {
      const adapter = adapterHost.httpAdapter;
      if (!adapter) return;
      if (adapter.getType() === 'fastify') this.installFastify(adapter.getInstance());
      else this.installExpress(adapter);
    });
  }

  onModuleDestroy(): void {
    this.subscription.unsubscribe();
  }

  private installExpress(adapter: { use: (...args: unknown[]) => unknown }): void {
    adapter.use((request: CapturingRequest, response: ServerResponse, next: () => void) => {
      if (!this.isMcpPost(request)) return next();
      if (Number(request.headers['content-length']) > this.options.maxBodyBytes) {
        // Refused on its declared length: answer before Express's own parsers start reading the upload.
        refuseOversized(response, this.options.maxBodyBytes);
        request.resume();
        return;
      }
      readRawBody(request, this.options.maxBodyBytes, (raw) => {
        request[MCP_RAW_BODY] = {
          raw,
          contentType: request.headers['content-type'],
          contentEncoding: request.headers['content-encoding'],
        };
        // The stream is consumed now, so Express's body parsers skip this request.
        next();
      });
    });
  }

  /**
   * Fastify: the body is read in `preParsing`, and the body headers are hidden from Fastify until `preValidation`
   * so that it parses nothing (a POST without Content-Type and length has no body to parse for it); they are back
   * in place before guards, interceptors and the endpoint run.
   */
  private installFastify(fastify: {
    addHook(name: 'preParsing', hook: (request: FastifyLikeRequest, reply: unknown, payload: IncomingMessage, done: (error: null, payload: IncomingMessage) => void) => void): void;
    addHook(name: 'preValidation', hook: (request: FastifyLikeRequest, reply: unknown, done: () => void) => void): void;
  }): void {
    fastify.addHook('preParsing', (request, _reply, payload, done) => {
      const raw = request.raw;
      if (!this.isMcpPost(raw)) return done(null, payload);
      readRawBody(payload, this.options.maxBodyBytes, (body) => {
        const headers = raw.headers;
        const hidden: HiddenBodyHeaders = {};
        for (const name of BODY_HEADERS) {
          const value = headers[name];
          if (value !== undefined) {
            hidden[name] = value;
            // Set to undefined rather than deleted: Fastify only tests for undefined, and a delete would turn the
            // headers object into a slow dictionary for everyone reading it after.
            headers[name] = undefined;
          }
        }
        raw[MCP_RAW_BODY] = { raw: body, contentType: hidden['content-type'], contentEncoding: hidden['content-encoding'], hidden };
        done(null, payload);
      });
    });
    fastify.addHook('preValidation', (request, _reply, done) => {
      const hidden = request.raw[MCP_RAW_BODY]?.hidden;
      if (hidden) Object.assign(request.raw.headers, hidden);
      done();
    });
  }

  private isMcpPost(request: IncomingMessage): boolean {
    if (request.method !== 'POST') return false;
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const pathname = query < 0 ? url : url.slice(0, query);
    return normalize(pathname) === (this.fullPath ??= this.resolveFullPath());
  }

  private resolveFullPath(): string {
    const prefix = this.applicationConfig.getGlobalPrefix();
    return normalize(`/${prefix}/${this.extras.path}`);
  }
}

/** 413 with a JSON-RPC body, closing the connection (the rest of the upload is not read). */
function refuseOversized(response: ServerResponse, limit: number): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32600, message: `Payload Too Large: the body exceeds ${limit} bytes` },
  });
  response.shouldKeepAlive = false;
  response.writeHead(413, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/** `//a/b/` → `/a/b`. */
function normalize(path: string): string {
  const collapsed = path.replace(/\/{2,}/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}
