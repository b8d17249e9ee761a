import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import { McpAuthenticator } from '../../auth/mcp-authenticator.service.js';

type FastifyLikeReply = { raw: ServerResponse; hijack(): unknown };
type FastifyLikeRequest = { raw: IncomingMessage };

interface FastifyLike {
  route(options: {
    method: string[];
    url: string;
    handler: (request: FastifyLikeRequest, reply: FastifyLikeReply) => void;
  }): unknown;
}

/** How long clients may cache the document, in seconds: it changes only with the server's configuration. */
const MAX_AGE_SEC = 300;

/** The well-known paths already served on one HTTP server (several MCP endpoints may share it: the first one wins). */
const servedPaths = new WeakMap<object, Set<string>>();

/**
 * Serves Protected Resource Metadata (RFC 9728) when the `auth` option is set: `GET` and `HEAD` on the path-suffixed
 * well-known URI of the resource (`/.well-known/oauth-protected-resource/mcp` for `https://host/mcp`, the one clients
 * try first, and the one every `401` names in `resource_metadata`) and on the root one
 * (`/.well-known/oauth-protected-resource`). The document is public: `Access-Control-Allow-Origin: *` (browser
 * clients fetch it, preflight included), cached for five minutes, and no Host/Origin or bearer check applies.
 *
 * The well-known URIs sit at the root of the host (RFC 8615), whatever the application's global prefix: they are
 * registered on the HTTP adapter itself when it is created (an Express middleware ahead of everything, a Fastify
 * route), so `setGlobalPrefix` neither moves nor needs to exclude them. Their paths come from `auth.resource`: an
 * endpoint under a global prefix names it there (`https://host/api/mcp`). Without `auth` nothing is registered, and
 * these paths answer the framework's 404.
 */
@Injectable()
export class ProtectedResourceMetadataInstaller implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('McpAuthorization');
  private readonly subscription?: Subscription;
  private readonly paths: readonly string[] = [];
  private body = '';

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: McpAuthenticator,
  ) {
    if (!authenticator.enabled) return;
    const location = authenticator.metadataLocation!;
    this.paths = [...new Set([location.path, location.rootPath])];
    this.body = JSON.stringify(authenticator.metadataDocument());
    // The adapter exists before Nest registers its middleware, parsers and routes: these go in ahead of them.
    this.subscription = adapterHost.init$.subscribe(() => {
      const adapter = adapterHost.httpAdapter;
      if (!adapter) return;
      const instance = adapter.getInstance<object>();
      const paths = this.claim(instance);
      if (paths.length === 0) return;
      if (adapter.getType() === 'fastify') this.installFastify(instance as FastifyLike, paths);
      else this.installExpress(adapter as unknown as { use: (...args: unknown[]) => unknown }, paths);
    });
  }

  onApplicationBootstrap(): void {
    if (this.authenticator.enabled && this.adapterHost.httpAdapter) {
      this.logger.log(
        `Bearer tokens required for ${this.authenticator.options!.resource}; Protected Resource Metadata at ${this.paths.join(' and ')}`,
      );
    }
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  /** The paths of this endpoint no other endpoint of the same server serves yet. */
  private claim(instance: object): string[] {
    let served = servedPaths.get(instance);
    if (!served) servedPaths.set(instance, (served = new Set()));
    const free = this.paths.filter((path) => !served.has(path));
    for (const path of free) served.add(path);
    return free;
  }

  private installExpress(adapter: { use: (...args: unknown[]) => unknown }, paths: readonly string[]): void {
    adapter.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
      if (!paths.includes(pathnameOf(request.url))) return next();
      this.answer(request, response);
    });
  }

  private installFastify(fastify: FastifyLike, paths: readonly string[]): void {
    for (const url of paths) {
      // HEAD comes with GET (Fastify's `exposeHeadRoutes`); the other verbs are answered 405 by the same handler.
      fastify.route({
        method: ['GET', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'],
        url,
        handler: (request, reply) => {
          reply.hijack();
          this.answer(request.raw, reply.raw);
        },
      });
    }
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    response.removeHeader('X-Powered-By');
    const cors = { 'Access-Control-Allow-Origin': '*' };
    switch (request.method) {
      case 'GET':
      case 'HEAD':
        response.writeHead(200, {
          ...cors,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(this.body),
          'Cache-Control': `public, max-age=${MAX_AGE_SEC}`,
        });
        // Node sends no body for HEAD.
        response.end(this.body);
        return;
      case 'OPTIONS':
        // A browser's preflight (the MCP client sends MCP-Protocol-Version with its request).
        response.writeHead(204, {
          ...cors,
          'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
          'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? '*',
          'Access-Control-Max-Age': '86400',
        });
        response.end();
        return;
      default:
        response.writeHead(405, { ...cors, Allow: 'GET, HEAD, OPTIONS' });
        response.end();
    }
  }
}

/** `/a/b?x` → `/a/b`. */
function pathnameOf(url: string | undefined): string {
  const value = url ?? '/';
  const query = value.indexOf('?');
  return query < 0 ? value : value.slice(0, query);
}
