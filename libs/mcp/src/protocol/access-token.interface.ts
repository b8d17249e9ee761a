import { McpErrorCode } from './error-codes.enum.js';
import { McpError } from './mcp.error.js';

/**
 * What a verified access token says about its caller: the result of an `McpTokenVerifier`. Plain JSON, so that it can
 * be cached and logged (it holds no token).
 */
export interface McpAccessToken {
  /** The caller: the token's `sub` (or what the verifier maps it to). Becomes the request's principal. */
  readonly subject: string;
  /** The scopes granted (`scope` claim, space-separated on the wire). */
  readonly scopes: readonly string[];
  /** The OAuth client the token was issued to (`client_id` / `azp`), when known. */
  readonly clientId?: string;
  /** The issuer (`iss`). */
  readonly issuer?: string;
  /** When the token stops being valid, epoch seconds (`exp`). */
  readonly expiresAt?: number;
  /** Every claim of the token (JWT payload, or the introspection response), for guards and hooks. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * Checks a bearer token and says who it belongs to. Resolves with the token's content when it is valid for this
 * resource (signature or introspection, issuer, audience, expiry); rejects with `McpTokenError` otherwise (401). A
 * verifier that cannot judge for load rejects with an `McpError` instead, answered as it is (e.g. 503 with
 * `data.retryAfterSeconds`, sent as `Retry-After`). Must never log the token.
 *
 * The built-in ones are `JwtTokenVerifier` (jose, the authorization server's JWKS) and `IntrospectionTokenVerifier`
 * (RFC 7662, for opaque tokens); give your own through the `auth.verifier` option.
 */
export interface McpTokenVerifier {
  verify(token: string): Promise<McpAccessToken>;
}

/**
 * Why a token was refused: the client gets `401` with `WWW-Authenticate: Bearer error="invalid_token",
 * error_description="<description>", resource_metadata="…"`. The description is sent to the client: say what is wrong
 * (expired, wrong audience…), never the token.
 */
export class McpTokenError extends Error {
  constructor(
    /** Sent to the client as `error_description`. */
    readonly description: string,
    options?: { cause?: unknown },
  ) {
    super(description, options);
    this.name = 'McpTokenError';
  }
}

/**
 * An authorization failure answered with an OAuth challenge: HTTP `400` (malformed request, RFC 6750
 * `invalid_request`), `401` (no valid token) or `403` (insufficient scope),
 * a `WWW-Authenticate` header (`challenge`), and a JSON-RPC error in the body. Thrown by the bearer check before
 * dispatch and by the scope check before a handler.
 */
export class McpAuthError extends McpError {
  constructor(
    httpStatus: 400 | 401 | 403,
    message: string,
    /** The `WWW-Authenticate` header value, e.g. `Bearer error="insufficient_scope", scope="deploy:write", resource_metadata="…"`. */
    readonly challenge: string,
    data?: unknown,
  ) {
    super(McpErrorCode.InvalidRequest, message, data, httpStatus);
    this.name = 'McpAuthError';
  }
}

/**
 * The transport headers an error carries beside its body: `WWW-Authenticate` with the bearer challenge of an
 * authorization failure (RFC 6750 §3), nothing for any other error. The one place that decides the challenge header:
 * the HTTP gate's early answers, the HTTP port's final response and the testing kit's in-process port all read it.
 */
export function challengeHeaders(error: unknown): Readonly<Record<string, string>> {
  return error instanceof McpAuthError ? { 'WWW-Authenticate': error.challenge } : NO_HEADERS;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
