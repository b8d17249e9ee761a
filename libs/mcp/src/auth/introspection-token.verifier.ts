import { Logger, type LoggerService } from '@nestjs/common';
import type { McpAuthOptions, McpIntrospectionOptions } from '../config/mcp-options.interface.js';
import { type McpAccessToken, McpTokenError, type McpTokenVerifier } from '../protocol/access-token.interface.js';
import {
  DEFAULT_AUTH_FETCH_TIMEOUT_MS,
  DEFAULT_AUTH_RETRY_AFTER_FAILURE_MS,
  DEFAULT_CLOCK_TOLERANCE_SEC,
  DEFAULT_INTROSPECTION_CACHE_ENTRIES,
  DEFAULT_INTROSPECTION_CACHE_TTL_MS,
  MAX_TOKEN_LENGTH,
} from './auth.constants.js';
import { McpTokenMessages } from './auth.messages.js';
import { requestAuthServerJson } from './auth-http.util.js';
import { audienceIncludes } from './resource-uri.util.js';
import { TokenCache, tokenCacheKey } from './token.cache.js';
import { clientIdOfClaims, numericDateClaim, scopesOfClaims } from './token-claims.util.js';

/** What `IntrospectionTokenVerifier` needs of the `auth` options (`introspection` is required). */
export type IntrospectionTokenVerifierOptions = Pick<McpAuthOptions, 'resource' | 'authorizationServers' | 'introspection'>;

/** Limits and logging of `IntrospectionTokenVerifier`, beyond the module options (defaults in `auth.constants.ts`). */
export interface IntrospectionTokenVerifierSettings {
  /** Longest wait for the introspection endpoint, in milliseconds. Default 5,000. */
  fetchTimeoutMs?: number;
  /** Most answers cached at once. Default 10,000. */
  maxCacheEntries?: number;
  /** After an outage, tokens are refused without asking again for this long, in milliseconds. Default 5,000. */
  retryAfterFailureMs?: number;
  /** Clock skew tolerated for `exp` and `nbf` in the answer, in seconds. Default 30. */
  clockToleranceSec?: number;
  /** Where outages are reported. Default: a Nest `Logger` named `IntrospectionTokenVerifier`. */
  logger?: Pick<LoggerService, 'warn' | 'log'>;
}

/** The answer could not be had: the endpoint is down, slow, refuses our credentials, or answered nonsense. */
class IntrospectionUnavailableError extends Error {}

/**
 * Verifies opaque access tokens by asking the authorization server (RFC 7662 token introspection), for servers
 * whose tokens are not JWTs:
 *
 * - one `POST` to `introspection.endpoint` with HTTP Basic client authentication (the resource server's own
 *   credentials), `token` and `token_type_hint=access_token`;
 * - `active: true` is required; then `token_type` (when given) must be Bearer, `exp`/`nbf` are checked with a little
 *   skew, `iss` (when given) must be one of `authorizationServers`, and `aud` (when given) must name this resource;
 * - the subject is `sub`, or for a token without a user (client credentials) its `client_id`.
 *
 * Active answers are cached for `introspection.cacheTtlMs` (default one minute; never beyond the token's `exp`; 0
 * turns the cache off), keyed by the token's SHA-256 and bounded in size; a revocation is seen once the cached
 * answer is older than that. Concurrent requests with one token share one introspection. When the endpoint cannot be
 * reached, tokens are refused (fail closed) and one warning is logged per outage.
 *
 * @example new IntrospectionTokenVerifier({ resource, authorizationServers, introspection: { endpoint, clientId, clientSecret } })
 */
export class IntrospectionTokenVerifier implements McpTokenVerifier {
  private readonly cache: TokenCache<McpAccessToken>;
  private readonly inFlight = new Map<string, Promise<McpAccessToken>>();
  private readonly cacheTtlMs: number;
  private readonly authorization: string;
  private readonly timeoutMs: number;
  private readonly retryAfterFailureMs: number;
  private readonly clockToleranceSec: number;
  private readonly issuers: ReadonlySet<string> | undefined;
  private readonly introspection: McpIntrospectionOptions;
  private readonly logger: Pick<LoggerService, 'warn' | 'log'>;
  private unavailableUntil = 0;
  private down = false;

  constructor(
    private readonly options: IntrospectionTokenVerifierOptions,
    settings: IntrospectionTokenVerifierSettings = {},
  ) {
    if (!options.introspection) throw new Error('IntrospectionTokenVerifier: the "introspection" options are required');
    this.introspection = options.introspection;
    const { clientId, clientSecret, cacheTtlMs } = options.introspection;
    this.cacheTtlMs = cacheTtlMs ?? DEFAULT_INTROSPECTION_CACHE_TTL_MS;
    this.cache = new TokenCache(settings.maxCacheEntries ?? DEFAULT_INTROSPECTION_CACHE_ENTRIES);
    // RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined and base64-encoded.
    this.authorization = `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
    this.timeoutMs = settings.fetchTimeoutMs ?? DEFAULT_AUTH_FETCH_TIMEOUT_MS;
    this.retryAfterFailureMs = settings.retryAfterFailureMs ?? DEFAULT_AUTH_RETRY_AFTER_FAILURE_MS;
    this.clockToleranceSec = settings.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
    this.issuers = options.authorizationServers.length ? new Set(options.authorizationServers) : undefined;
    this.logger = settings.logger ?? new Logger(IntrospectionTokenVerifier.name);
  }

  /** Resolves with what the authorization server says of the token; rejects with `McpTokenError` when it is refused. */
  async verify(token: string): Promise<McpAccessToken> {
    if (token.length > MAX_TOKEN_LENGTH) throw new McpTokenError(McpTokenMessages.tooLong);
    const key = tokenCacheKey(token);
    const cached = this.cache.get(key);
    if (cached) return cached;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.introspect(token, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async introspect(token: string, key: string): Promise<McpAccessToken> {
    const answer = await this.ask(token);
    const accessToken = this.judge(answer);
    if (this.cacheTtlMs > 0) {
      const now = Date.now();
      const expiresAt = accessToken.expiresAt === undefined ? Infinity : accessToken.expiresAt * 1000;
      this.cache.set(key, accessToken, Math.min(now + this.cacheTtlMs, expiresAt), now);
    }
    return accessToken;
  }

  private async ask(token: string): Promise<Record<string, unknown>> {
    if (Date.now() < this.unavailableUntil) throw new McpTokenError(McpTokenMessages.introspectionUnavailable);
    try {
      const { status, body } = await requestAuthServerJson(
        this.introspection.endpoint,
        {
          method: 'POST',
          headers: { authorization: this.authorization, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        },
        { timeoutMs: this.timeoutMs },
      );
      if (status === 401 || status === 403) {
        throw new IntrospectionUnavailableError(`it refused this resource server's credentials (status ${status})`);
      }
      // 400 is about the request, that is the token (oidc-provider, for one, answers 400 to a JWT): refused, no outage.
      if (status === 400) {
        this.recovered();
        return { active: false };
      }
      if (status !== 200) throw new IntrospectionUnavailableError(`status ${status}`);
      if (!body || typeof body.active !== 'boolean') {
        throw new IntrospectionUnavailableError('the answer is not an introspection response');
      }
      this.recovered();
      return body;
    } catch (error) {
      this.failed(error);
      throw new McpTokenError(McpTokenMessages.introspectionUnavailable, { cause: error });
    }
  }

  /** Turns an introspection response into the token's content, or refuses it. */
  private judge(answer: Record<string, unknown>): McpAccessToken {
    if (answer.active !== true) throw new McpTokenError(McpTokenMessages.inactive);
    if (answer.token_type !== undefined && String(answer.token_type).toLowerCase() !== 'bearer') {
      throw new McpTokenError(McpTokenMessages.notAccessToken);
    }
    const now = Date.now() / 1000;
    const expiresAt = numericDateClaim(answer, 'exp');
    if (answer.exp !== undefined && expiresAt === undefined) throw new McpTokenError(McpTokenMessages.invalidClaim('exp'));
    if (expiresAt !== undefined && expiresAt <= now - this.clockToleranceSec) {
      throw new McpTokenError(McpTokenMessages.expired);
    }
    const notBefore = numericDateClaim(answer, 'nbf');
    if (notBefore !== undefined && notBefore > now + this.clockToleranceSec) {
      throw new McpTokenError(McpTokenMessages.notYetValid);
    }
    if (answer.iss !== undefined && this.issuers && !(typeof answer.iss === 'string' && this.issuers.has(answer.iss))) {
      throw new McpTokenError(McpTokenMessages.untrustedIssuer);
    }
    if (answer.aud !== undefined && !audienceIncludes(answer.aud, this.options.resource)) {
      throw new McpTokenError(McpTokenMessages.wrongAudience);
    }
    const clientId = clientIdOfClaims(answer);
    // RFC 9068 §2.2: a token obtained by a client for itself has the client as its subject.
    const subject = typeof answer.sub === 'string' && answer.sub !== '' ? answer.sub : clientId;
    if (subject === undefined) throw new McpTokenError(McpTokenMessages.noSubject);
    // Frozen: one cached answer is shared by every request that presents the token.
    return Object.freeze({
      subject,
      scopes: Object.freeze(scopesOfClaims(answer)),
      clientId,
      issuer: typeof answer.iss === 'string' ? answer.iss : undefined,
      expiresAt,
      claims: Object.freeze({ ...answer }),
    });
  }

  private failed(error: unknown): void {
    this.unavailableUntil = Date.now() + this.retryAfterFailureMs;
    if (this.down) return;
    this.down = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(
      `The introspection endpoint ${this.introspection.endpoint} gave no answer (${reason}); bearer tokens ` +
        'are refused until it does',
    );
  }

  private recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.log(`The introspection endpoint ${this.introspection.endpoint} answers again`);
  }
}

/** `application/x-www-form-urlencoded` encoding of one value (spaces as `+`). */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}
