import { Injectable, Logger } from '@nestjs/common';
import type { McpAuthOptions } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import {
  type McpAccessToken,
  McpAuthError,
  McpTokenError,
  type McpTokenVerifier,
} from '../protocol/access-token.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpTokenMessages } from './auth.messages.js';
import { validateAuthOptions } from './auth-options.validator.js';
import { IntrospectionTokenVerifier } from './introspection-token.verifier.js';
import { JwtTokenVerifier } from './jwt-token.verifier.js';
import {
  buildProtectedResourceMetadata,
  type McpProtectedResourceMetadata,
  type McpProtectedResourceMetadataLocation,
  protectedResourceMetadataLocation,
} from './protected-resource-metadata.js';
import { defaultPrincipal } from './token-principal.util.js';
import { buildBearerChallenge } from './www-authenticate.js';

/** Who a verified request comes from: the principal requests, sessions and tasks are bound to, and the token's content. */
export interface McpAuthenticatedCaller {
  readonly principal: string;
  readonly accessToken: McpAccessToken;
}

/** `Bearer <token68>` (RFC 6750 §2.1, RFC 7235 §2.1): the scheme is case-insensitive, one space or more before the token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** Any scheme followed by credentials, or nothing (`Basic …`, `Digest …`, `Bearer` alone). */
const SCHEME = /^([A-Za-z0-9!#$%&'*+\-.^_`|~]+)(?: |$)/;

/**
 * The bearer check of the OAuth 2.1 resource server (MCP 2026-07-28 "Authorization"; RFC 6750), run on every HTTP
 * request when the `auth` option is set, before anything of the request is read:
 *
 * - no credentials, or another scheme than Bearer → `401` with `WWW-Authenticate: Bearer resource_metadata="…"` (and
 *   `scope` when `auth.scopesSupported` is set), without an error code (RFC 6750 §3.1);
 * - a malformed `Authorization: Bearer` header, two `Authorization` headers, or a token in the query string
 *   (`access_token=` however it is encoded, which MCP forbids) → `400` with `error="invalid_request"`;
 * - a token the verifier refuses → `401` with `error="invalid_token"` and the verifier's description; a verifier too
 *   busy to judge answers its own `McpError` (503 with `Retry-After`).
 *
 * The principal is `auth.principal(token)`, else `defaultPrincipal`: the subject with one trusted issuer, the issuer
 * and the subject with several.
 *
 * The verifier is `auth.verifier`, else RFC 7662 introspection when `auth.introspection` is set, else JWTs checked with
 * jose against the authorization servers' published keys. Tokens are never logged, never put in an error, and never
 * passed on: only the verified `McpAccessToken` travels with the request.
 */
@Injectable()
export class McpAuthenticator {
  private readonly logger = new Logger('McpAuthenticator');
  /** The validated `auth` options; undefined when authorization is off. */
  private readonly auth?: Readonly<McpAuthOptions>;
  private readonly verifier?: McpTokenVerifier;
  /** Where this resource's metadata document is served; its path-suffixed URL is named in every challenge. */
  readonly metadataLocation?: McpProtectedResourceMetadataLocation;
  /** The `Bearer resource_metadata="…"[, scope="…"]` challenge of a request without credentials. */
  private readonly missingTokenChallenge?: string;
  /** The verifier failed in a way it should not (not an `McpTokenError`): logged once. */
  private verifierFailureLogged = false;

  constructor(options: McpResolvedOptions) {
    if (options.auth === undefined) return;
    const auth = validateAuthOptions(options.auth);
    this.auth = auth;
    const introspection = auth.introspection;
    this.verifier =
      auth.verifier ??
      (introspection ? new IntrospectionTokenVerifier({ ...auth, introspection }) : new JwtTokenVerifier(auth));
    this.metadataLocation = protectedResourceMetadataLocation(auth.resource);
    this.missingTokenChallenge = this.challenge();
  }

  /** Whether the `auth` option is set: every HTTP request then needs a valid bearer token. */
  get enabled(): boolean {
    return this.auth !== undefined;
  }

  /** The options of Protected Resource Metadata, when authorization is on. */
  get options(): Readonly<McpAuthOptions> | undefined {
    return this.auth;
  }

  /**
   * Checks the credentials of one HTTP request: its `Authorization` header — every value the client sent, since Node
   * keeps only the first — and its URL (a token in the query string is refused). Resolves with the caller; rejects with
   * `McpAuthError` (400 or 401, with its challenge).
   */
  async authenticate(
    authorization: string | readonly string[] | undefined,
    url: string | undefined,
  ): Promise<McpAuthenticatedCaller> {
    const auth = this.requireEnabled();
    if (url !== undefined && hasQueryToken(url)) {
      throw this.invalidRequest('The access token must be sent in the Authorization header, never in the query string');
    }
    // Two credentials are no credential: which one a proxy, a framework or this server would read is anyone's guess.
    if (typeof authorization !== 'string' && authorization !== undefined && authorization.length > 1) {
      throw this.invalidRequest('Only one Authorization header may be sent');
    }
    const header = typeof authorization === 'string' ? authorization : authorization?.[0];
    if (header === undefined || header.trim() === '') throw this.missingToken();
    const bearer = BEARER.exec(header);
    if (!bearer) {
      const scheme = SCHEME.exec(header)?.[1];
      // Another authentication scheme is no credentials for this resource (RFC 6750 §3.1: no error code then).
      if (scheme !== undefined && scheme.toLowerCase() !== 'bearer') throw this.missingToken();
      throw this.invalidRequest('The Authorization header must be "Bearer <token>"');
    }
    let accessToken: McpAccessToken;
    try {
      accessToken = await this.verifier!.verify(bearer[1]);
    } catch (error) {
      // A verifier too busy to judge (503 with Retry-After) says so itself: that is no verdict on the token.
      if (error instanceof McpError) throw error;
      throw this.invalidToken(error);
    }
    if (typeof accessToken?.subject !== 'string' || accessToken.subject === '' || !Array.isArray(accessToken.scopes)) {
      throw this.invalidToken(new Error('the verifier resolved without a subject or scopes'));
    }
    return { principal: this.principalOf(auth, accessToken), accessToken };
  }

  /** Protected Resource Metadata (RFC 9728 §2) of this resource, when authorization is on. */
  metadataDocument(): McpProtectedResourceMetadata | undefined {
    return this.auth && buildProtectedResourceMetadata(this.auth);
  }

  /**
   * The challenge of a refusal: `Bearer resource_metadata="…"`, the scopes (`scope`, default `auth.scopesSupported`)
   * and the error, for the scope check before handlers too.
   */
  challenge(error?: { error: string; description?: string; scopes?: readonly string[] }): string {
    const auth = this.requireEnabled();
    return buildBearerChallenge({
      resourceMetadata: this.metadataLocation!.url,
      scopes: error?.scopes ?? auth.scopesSupported,
      error: error?.error,
      errorDescription: error?.description,
    });
  }

  private principalOf(auth: Readonly<McpAuthOptions>, token: McpAccessToken): string {
    let principal: unknown;
    try {
      principal = auth.principal?.(token);
    } catch (error) {
      this.logger.error('The "auth.principal" function threw; the request is refused', (error as Error)?.stack);
      throw principalFailure();
    }
    if (principal === undefined) {
      const fallback = defaultPrincipal(auth.authorizationServers, token);
      if (fallback === undefined) throw this.invalidToken(new McpTokenError(McpTokenMessages.noIssuer));
      return fallback;
    }
    if (typeof principal !== 'string' || principal === '') {
      this.logger.error('The "auth.principal" function returned no string; the request is refused');
      throw principalFailure();
    }
    return principal;
  }

  private missingToken(): McpAuthError {
    return new McpAuthError(401, 'Unauthorized: a bearer access token is required', this.missingTokenChallenge!);
  }

  private invalidRequest(description: string): McpAuthError {
    const challenge = this.challenge({ error: 'invalid_request', description });
    return new McpAuthError(400, `Bad Request: ${description}`, challenge);
  }

  private invalidToken(error: unknown): McpAuthError {
    let description: string;
    if (error instanceof McpTokenError) description = error.description;
    else {
      // A verifier that throws something else is broken, not the token: say so once, without the token.
      if (!this.verifierFailureLogged) {
        this.verifierFailureLogged = true;
        this.logger.error(`The token verifier failed (${describe(error)}); such tokens are refused (logged once)`);
      }
      description = 'The token could not be verified';
    }
    const challenge = this.challenge({ error: 'invalid_token', description });
    return new McpAuthError(401, `Unauthorized: ${description}`, challenge);
  }

  private requireEnabled(): Readonly<McpAuthOptions> {
    if (!this.auth)
      throw new McpError(McpErrorCode.InternalError, 'Internal error: authorization is not configured', undefined, 500);
    return this.auth;
  }
}

/** 500 for a request whose principal could not be had: the application's `auth.principal` is broken (logged). */
function principalFailure(): McpError {
  return new McpError(McpErrorCode.InternalError, 'Internal error: the caller could not be identified', undefined, 500);
}

/**
 * A query parameter name that a server or a framework may read as `access_token` (RFC 6750 §2.3, which MCP does not
 * allow): compared after decoding (`%5F`, `%5f`, `+`), in any case, and with a bracket suffix as qs reads arrays and
 * objects (`access_token[]`, `access_token[0]`).
 */
const QUERY_TOKEN_NAME = /^access_token(?:\[|$)/i;

/** Whether the URL's query names `access_token`, as `URLSearchParams` decodes it (the way the frameworks do). */
function hasQueryToken(url: string): boolean {
  const query = url.indexOf('?');
  if (query < 0 || query === url.length - 1) return false;
  for (const name of new URLSearchParams(url.slice(query + 1)).keys()) {
    if (QUERY_TOKEN_NAME.test(name)) return true;
  }
  return false;
}

/** An error's class and message, for the log: a verifier's own message, which must not hold the token. */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}` : typeof error;
}
