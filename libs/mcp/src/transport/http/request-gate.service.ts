import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { McpAuthenticator } from '../../auth/mcp-authenticator.service.js';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import type { McpAccessToken } from '../../protocol/access-token.interface.js';
import { McpErrorCode } from '../../protocol/error-codes.enum.js';
import { McpError } from '../../protocol/mcp.error.js';
import { HostOriginValidator } from './host-origin.validator.js';
import { rawHeaderCount, rawHeaderValues } from './raw-headers.util.js';

/** Who sent a request, as known before its body is read: with `auth`, the principal and the verified token. */
export interface HttpCaller {
  readonly principal?: string;
  readonly accessToken?: McpAccessToken;
}

/** What the gate says of a request: let it in (with its caller when `auth` verified one), or the refusal to answer. */
export type GateVerdict =
  | { readonly ok: true; readonly caller?: HttpCaller }
  | { readonly ok: false; readonly error: McpError };

const ADMITTED: GateVerdict = { ok: true };

/**
 * The checks of an endpoint request that need nothing of its body, in the order of ADR 0009: Host/Origin (403, 400 for
 * two Host headers), then with `auth` the bearer check (`McpAuthenticator`: 400 for two Authorization headers, a
 * malformed one or a token in the query string; 401 for none or an invalid token; 503 when the verifier is too busy).
 *
 * For a POST they run in the body capture, before a byte of the body is read (`BodyCaptureInstaller`), so that a
 * refused request is answered at once and costs no buffer; the verdict travels with the captured body. The GET and
 * DELETE of 2025-11-25 sessions, which have no body to capture, run them in the transport.
 */
@Injectable()
export class McpRequestGate {
  private readonly logger = new Logger('McpRequestGate');
  private readonly hostOrigin: HostOriginValidator;

  constructor(
    options: McpResolvedOptions,
    private readonly authenticator: McpAuthenticator,
  ) {
    this.hostOrigin = new HostOriginValidator(options.allowedHosts, options.allowedOrigins);
  }

  /** What the Host/Origin check lets through and which option changes it, for the startup log. */
  describe(): string {
    return this.hostOrigin.describe();
  }

  /**
   * Judges `request` and calls `done` once: synchronously without `auth` (nothing to wait for), after the token is
   * verified with it. A callback rather than a promise: it runs on every MCP POST.
   */
  admit(request: IncomingMessage, done: (verdict: GateVerdict) => void): void {
    const forbidden = this.hostOriginRefusal(request);
    if (forbidden) return done({ ok: false, error: forbidden });
    if (!this.authenticator.enabled) return done(ADMITTED);
    this.authenticator.authenticate(authorizationOf(request), request.url).then(
      (caller) => done({ ok: true, caller }),
      (error: unknown) => done({ ok: false, error: this.asMcpError(error) }),
    );
  }

  /** The Host/Origin check alone (403, or 400 for two Host headers): for what is served before the bearer check. */
  hostOriginRefusal(request: IncomingMessage): McpError | undefined {
    return this.hostOrigin.check(request);
  }

  /** `admit` as a promise, for the transport's own verbs: the caller, or a rejection with the `McpError` to answer. */
  caller(request: IncomingMessage): Promise<HttpCaller | undefined> {
    return new Promise((resolve, reject) =>
      this.admit(request, (verdict) => (verdict.ok ? resolve(verdict.caller) : reject(verdict.error))),
    );
  }

  private asMcpError(error: unknown): McpError {
    if (error instanceof McpError) return error;
    this.logger.error('Unexpected failure of the bearer check', (error as Error)?.stack ?? String(error));
    return new McpError(McpErrorCode.InternalError, 'Internal error', undefined, 500);
  }
}

/** The `Authorization` header, or every one of them when the client sent several (Node's `headers` keeps the first). */
function authorizationOf(request: IncomingMessage): string | readonly string[] | undefined {
  return rawHeaderCount(request.rawHeaders, 'authorization') > 1
    ? rawHeaderValues(request.rawHeaders, 'authorization')
    : request.headers.authorization;
}
