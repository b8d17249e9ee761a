import type { INestApplicationContext } from '@nestjs/common';
import { MCP_MODULE_OPTIONS_EXTRAS } from '../config/mcp-extras.constants.js';
import type { McpModuleExtras } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { mcpServerToken, type McpServerPart } from '../config/server-tokens.js';
import { requireServerChoice } from '../config/server-lookup.util.js';
import type { JsonRpcNotification } from '../protocol/json-rpc.interface.js';
import type { McpRequestMeta } from '../protocol/request-meta.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpCallRunner } from '../server/call.runner.js';
import { defaultPrincipal } from '../auth/token-principal.util.js';
import { McpModernWire } from '../server/modern-wire.profile.js';
import { type McpAccessToken, challengeHeaders } from '../protocol/access-token.interface.js';
import type { McpTestingCaller } from './mcp-testing-options.interface.js';
import type { CallPort } from '../server/call-port.interface.js';
import type { CallRequest } from '../server/call-request.interface.js';
import { errorResponse } from '../server/mcp.dispatcher.js';
import { lowerCaseKeys, standardHeaders } from './mcp-headers.util.js';
import type { TestingExchange, TestingReply, TestingTransport } from './testing-transport.interface.js';

/**
 * @internal Runs requests through the application's own `McpCallRunner`, as the HTTP transport does after its wire
 * checks (timed and drained like any call; not counted against the calls-in-flight caps): the scope carries a plain
 * request object (`{ method, url, headers, body, user?, … }`) where the HTTP request would be, so guards,
 * interceptors, pipes and filters see it as `args[0]`. The response channel is read the way the HTTP writer reads
 * it: notifications, then the final response, whose HTTP status is the one HTTP would use.
 */
export class InProcessTestingTransport implements TestingTransport {
  readonly mode = 'in-process';

  private constructor(
    private readonly runner: McpCallRunner,
    private readonly wire: McpModernWire,
    private readonly options: McpResolvedOptions,
    private readonly path: string,
  ) {}

  /** The transport to the application's server, or to the one called `server` when it has several. */
  static from(app: INestApplicationContext, server?: string): InProcessTestingTransport {
    requireServerChoice(app, server, 'McpTestingClient.create');
    const find = <T>(token: unknown, part: McpServerPart): T | undefined => {
      try {
        return app.get((server === undefined ? token : mcpServerToken(server, part)) as string, { strict: false }) as T;
      } catch {
        return undefined;
      }
    };
    const runner = find<McpCallRunner>(McpCallRunner, 'runner');
    const wire = find<McpModernWire>(McpModernWire, 'wire');
    const options = find<McpResolvedOptions>(McpResolvedOptions, 'options');
    if (!runner || !wire || !options) {
      throw new Error(
        server === undefined
          ? 'McpTestingClient: this module has no McpModule; import McpModule.forRoot(...) in the module under test'
          : `McpTestingClient: this module has no server named "${server}" (McpModule.forRoot({ name: '${server}', … }))`,
      );
    }
    const path = find<McpModuleExtras>(MCP_MODULE_OPTIONS_EXTRAS, 'extras')?.path ?? '/mcp';
    return new InProcessTestingTransport(runner, wire, options, path);
  }

  send({ message, options, onNotification }: TestingExchange): Promise<TestingReply> {
    const request = {
      method: 'POST',
      url: this.path,
      // The field Mcp-Name mirrors is the route's own, as the server checks it.
      headers: {
        ...standardHeaders(message, this.wire.declaredRoute(message.method)?.nameParam),
        ...lowerCaseKeys(options.headers),
      },
      body: message,
      ...options.request,
      ...(options.user !== undefined && { user: options.user }),
    };
    return new Promise<TestingReply>((resolve, reject) => {
      const signal = options.signal;
      if (signal?.aborted) return reject(signal.reason);
      let meta: McpRequestMeta;
      let principal: string | undefined;
      let accessToken: McpAccessToken | undefined;
      try {
        meta = this.wire.preamble(message.params);
        accessToken = options.caller && tokenOf(options.caller);
        principal =
          options.principal ?? (accessToken ? this.principalOf(accessToken) : this.options.principal?.(request));
      } catch (error) {
        if (!(error instanceof McpError)) return reject(error);
        return resolve({ response: errorResponse(message.id, error), httpStatus: error.httpStatus });
      }
      let cancel: (() => void) | undefined;
      let wwwAuthenticate: string | undefined;
      const port: CallPort = {
        open: (call) => {
          let streaming = false;
          call.channel.messages$.subscribe((sent) => {
            if (sent.type === 'notification' && !('id' in sent.message)) {
              streaming = true;
              onNotification(sent.message as JsonRpcNotification);
            } else if (sent.type === 'response') {
              // Over HTTP a response after a notification is an SSE frame of a 200 stream.
              const status = streaming ? 200 : sent.httpStatus;
              resolve({
                response: sent.message,
                httpStatus: status,
                ...(!streaming && wwwAuthenticate !== undefined && { wwwAuthenticate }),
              });
            }
          });
          // The test cancelling is the client going away: nothing more reaches it, and the handler's signal aborts.
          cancel = () => {
            call.channel.abandon();
            call.cancellation.abort(signal!.reason);
            reject(signal!.reason);
          };
          signal?.addEventListener('abort', cancel, { once: true });
        },
        // An authorization refusal keeps the challenge HTTP would send in WWW-Authenticate.
        beforeResponse: (_running, outcome) => {
          if (!outcome.ok) wwwAuthenticate = challengeHeaders(outcome.error)['WWW-Authenticate'];
        },
        close: () => {
          if (cancel) signal?.removeEventListener('abort', cancel);
        },
      };
      const call: CallRequest = {
        origin: 'in-process',
        wire: this.wire,
        id: message.id,
        method: message.method,
        params: message.params ?? {},
        meta,
        principal,
        accessToken,
        httpRequest: request,
        admit: false,
      };
      this.runner.run(call, port).catch(reject);
    });
  }

  /** The principal the module would derive from a verified token (`auth.principal`, else `defaultPrincipal`). */
  private principalOf(token: McpAccessToken): string {
    const principal =
      this.options.auth?.principal?.(token) ?? defaultPrincipal(this.options.auth?.authorizationServers ?? [], token);
    if (principal === undefined) {
      throw new TypeError(
        'McpTestingClient: "auth" trusts several authorization servers, so caller.issuer must name the token\'s issuer',
      );
    }
    return principal;
  }
}

/** The verified token a `caller` stands for. */
function tokenOf(caller: McpTestingCaller): McpAccessToken {
  if (typeof caller?.subject !== 'string' || caller.subject.length === 0) {
    throw new TypeError('McpTestingClient: caller.subject must be a non-empty string');
  }
  const scopes = Object.freeze([...(caller.scopes ?? [])]);
  return Object.freeze({
    subject: caller.subject,
    scopes,
    ...(caller.clientId !== undefined && { clientId: caller.clientId }),
    ...(caller.issuer !== undefined && { issuer: caller.issuer }),
    claims: Object.freeze({
      ...caller.claims,
      sub: caller.subject,
      ...(caller.issuer !== undefined && { iss: caller.issuer }),
      scope: scopes.join(' '),
      ...(caller.clientId !== undefined && { client_id: caller.clientId }),
    }),
  });
}
