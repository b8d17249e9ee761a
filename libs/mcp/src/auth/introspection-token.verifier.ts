import { Logger, type LoggerService } from '@nestjs/common';
import type { McpAuthOptions, McpIntrospectionOptions } from '../config/mcp-options.interface.js';
import { type McpAccessToken, McpTokenError, type McpTokenVerifier } from '../protocol/access-token.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import {
  DEFAULT_AUTH_FETCH_TIMEOUT_MS,
  DEFAULT_AUTH_RETRY_AFTER_FAILURE_MS,
  DEFAULT_CLOCK_TOLERANCE_SEC,
  DEFAULT_INTROSPECTION_CACHE_ENTRIES,
  DEFAULT_INTROSPECTION_CACHE_TTL_MS,
  DEFAULT_INTROSPECTION_INACTIVE_CACHE_TTL_MS,
  DEFAULT_INTROSPECTION_MAX_IN_FLIGHT,
  DEFAULT_INTROSPECTION_OUTAGE_THRESHOLD,
  INTROSPECTION_BUSY_RETRY_AFTER_SECONDS,
  MAX_TOKEN_LENGTH,
} from './auth.constants.js';
import { McpTokenMessages } from './auth.messages.js';
import { requestAuthServerJson } from './auth-http.util.js';
import { audienceIncludes } from './resource-uri.util.js';
import { TokenCache, tokenCacheKey } from './token.cache.js';
import { clientIdOfClaims, numericDateClaim, scopesOfClaims } from './token-claims.util.js';

/** What `IntrospectionTokenVerifier` needs of the `auth` options (`introspection` is required). */
export type IntrospectionTokenVerifierOptions = Pick<
  McpAuthOptions,
  'resource' | 'authorizationServers' | 'introspection'
>;

/** Limits and logging of `IntrospectionTokenVerifier`, beyond the module options (defaults in `auth.constants.ts`). */
export interface IntrospectionTokenVerifierSettings {
  /** Longest wait for the introspection endpoint, in milliseconds. Default 5,000. */
  fetchTimeoutMs?: number;
  /** Most answers cached at once (accepted tokens; refused ones have a cache of the same size). Default 10,000. */
  maxCacheEntries?: number;
  /**
   * After an outage, tokens are refused without asking again for this long, in milliseconds; a token whose own
   * introspection failed is refused this long too. Default 5,000.
   */
  retryAfterFailureMs?: number;
  /**
   * Distinct tokens whose introspection failed (not 200, not 400) within `retryAfterFailureMs`, with no good answer
   * between them, that make an outage. Default 5.
   */
  outageThreshold?: number;
  /** Clock skew tolerated for `exp` and `nbf` in the answer, in seconds. Default 30. */
  clockToleranceSec?: number;
  /** Where outages are reported. Default: a Nest `Logger` named `IntrospectionTokenVerifier`. */
  logger?: Pick<LoggerService, 'warn' | 'log'>;
}

/**
 * Verifies opaque access tokens by asking the authorization server (RFC 7662 token introspection), for servers
 * whose tokens are not JWTs:
 *
 * - one `POST` to `introspection.endpoint` with HTTP Basic client authentication (the resource server's own
 *   credentials), `token` and `token_type_hint=access_token`;
 * - `active: true` is required; then `token_type` (when given) must be Bearer, `exp`/`nbf` are checked with a little
 *   skew, `iss` (when given) must be one of `authorizationServers`, and `aud` must name this resource — an answer
 *   without `aud` is refused unless `introspection.requireAudience` is false (a token issued for no resource in
 *   particular is not one issued for this one);
 * - the subject is `sub`, or for a token without a user (client credentials) its `client_id`; the issuer is `iss`, or
 *   the one authorization server when only one is trusted.
 *
 * Accepted answers are cached for `introspection.cacheTtlMs` (default one minute; never beyond the token's `exp`; 0
 * turns the cache off), refused ones for `introspection.inactiveCacheTtlMs` (default 10 s), both keyed by the token's
 * SHA-256 and bounded in size; a revocation is seen once the cached answer is older than that. Concurrent requests with
 * one token share one introspection, and at most `introspection.maxInFlight` run at once (more: 503 with
 * `Retry-After`).
 *
 * Failures fail closed, and are charged to what caused them. An answer that is not 200 (a 429 for one token, a 5xx it
 * chokes on) refuses that token for the retry window; the endpoint is taken to be down — every token refused without
 * asking for the retry window, one warning logged — only when it cannot be reached, times out, refuses the resource
 * server's credentials, or fails for `outageThreshold` distinct tokens in a row.
 *
 * @example new IntrospectionTokenVerifier({ resource, authorizationServers, introspection: { endpoint, clientId, clientSecret } })
 */
export class IntrospectionTokenVerifier implements McpTokenVerifier {
  private readonly cache: TokenCache<McpAccessToken>;
  /** Refused tokens by hash: the answer's refusal, or the failure of that token's own introspection. */
  private readonly refused: TokenCache<McpTokenError>;
  private readonly inFlight = new Map<string, Promise<McpAccessToken>>();
  /** Tokens whose introspection failed since the last good answer, with when (epoch milliseconds). */
  private readonly failing = new Map<string, number>();
  private readonly cacheTtlMs: number;
  private readonly inactiveCacheTtlMs: number;
  private readonly maxInFlight: number;
  private readonly requireAudience: boolean;
  private readonly authorization: string;
  private readonly timeoutMs: number;
  private readonly retryAfterFailureMs: number;
  private readonly outageThreshold: number;
  private readonly clockToleranceSec: number;
  private readonly issuers: ReadonlySet<string>;
  /** The issuer of an answer without `iss`: the authorization server, when only one is trusted. */
  private readonly soleIssuer: string | undefined;
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
    const { clientId, clientSecret, cacheTtlMs, inactiveCacheTtlMs, maxInFlight, requireAudience } =
      options.introspection;
    this.cacheTtlMs = cacheTtlMs ?? DEFAULT_INTROSPECTION_CACHE_TTL_MS;
    this.inactiveCacheTtlMs = inactiveCacheTtlMs ?? DEFAULT_INTROSPECTION_INACTIVE_CACHE_TTL_MS;
    this.maxInFlight = maxInFlight ?? DEFAULT_INTROSPECTION_MAX_IN_FLIGHT;
    this.requireAudience = requireAudience ?? true;
    const entries = settings.maxCacheEntries ?? DEFAULT_INTROSPECTION_CACHE_ENTRIES;
    this.cache = new TokenCache(entries);
    // Apart from the accepted tokens: a flood of junk tokens evicts only other junk.
    this.refused = new TokenCache(entries);
    // RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined and base64-encoded.
    this.authorization = `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
    this.timeoutMs = settings.fetchTimeoutMs ?? DEFAULT_AUTH_FETCH_TIMEOUT_MS;
    this.retryAfterFailureMs = settings.retryAfterFailureMs ?? DEFAULT_AUTH_RETRY_AFTER_FAILURE_MS;
    this.outageThreshold = settings.outageThreshold ?? DEFAULT_INTROSPECTION_OUTAGE_THRESHOLD;
    this.clockToleranceSec = settings.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
    this.issuers = new Set(options.authorizationServers);
    this.soleIssuer = options.authorizationServers.length === 1 ? options.authorizationServers[0] : undefined;
    this.logger = settings.logger ?? new Logger(IntrospectionTokenVerifier.name);
  }

  /**
   * Resolves with what the authorization server says of the token; rejects with `McpTokenError` when it is refused,
   * or with an `McpError` (503, `data.retryAfterSeconds`) when `maxInFlight` introspections are already running.
   */
  async verify(token: string): Promise<McpAccessToken> {
    if (token.length > MAX_TOKEN_LENGTH) throw new McpTokenError(McpTokenMessages.tooLong);
    const key = tokenCacheKey(token);
    const now = Date.now();
    const cached = this.cache.get(key, now);
    if (cached) return cached;
    const refusal = this.refused.get(key, now);
    if (refusal) throw refusal;
    let pending = this.inFlight.get(key);
    if (!pending) {
      if (now < this.unavailableUntil) throw new McpTokenError(McpTokenMessages.introspectionUnavailable);
      if (this.inFlight.size >= this.maxInFlight) throw introspectionBusy();
      pending = this.introspect(token, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async introspect(token: string, key: string): Promise<McpAccessToken> {
    const answer = await this.ask(token, key);
    let accessToken: McpAccessToken;
    try {
      accessToken = this.judge(answer);
    } catch (error) {
      // The answer will not change for a while: inactive stays inactive, another audience stays another. A token
      // not valid yet will be soon, so that one is asked again.
      const refusal = error as McpTokenError;
      if (refusal.description !== McpTokenMessages.notYetValid)
        this.refused.set(key, refusal, Date.now() + this.inactiveCacheTtlMs);
      throw refusal;
    }
    if (this.cacheTtlMs > 0) {
      const now = Date.now();
      const expiresAt = accessToken.expiresAt === undefined ? Infinity : accessToken.expiresAt * 1000;
      this.cache.set(key, accessToken, Math.min(now + this.cacheTtlMs, expiresAt), now);
    }
    return accessToken;
  }

  /** The introspection response; a failure rejects with `McpTokenError` ("try again later") once it is charged. */
  private async ask(token: string, key: string): Promise<Record<string, unknown>> {
    let answer: Awaited<ReturnType<typeof requestAuthServerJson>>;
    try {
      answer = await requestAuthServerJson(
        this.introspection.endpoint,
        {
          method: 'POST',
          headers: { authorization: this.authorization, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        },
        { timeoutMs: this.timeoutMs },
      );
    } catch (error) {
      // Unreachable, too slow, or an answer too large: nothing about this token, everything about the endpoint.
      throw this.outage(error instanceof Error ? error.message : String(error), error);
    }
    const { status, body } = answer;
    if (status === 401 || status === 403) {
      throw this.outage(`it refused this resource server's credentials (status ${status})`);
    }
    // 400 is about the request, that is the token (oidc-provider, for one, answers 400 to a JWT): refused, no outage.
    if (status === 400) {
      this.answered();
      return { active: false };
    }
    if (status !== 200) throw this.tokenFailed(key, `status ${status}`);
    if (!body || typeof body.active !== 'boolean')
      throw this.tokenFailed(key, 'the answer is not an introspection response');
    this.answered();
    return body;
  }

  /** Turns an introspection response into the token's content, or refuses it. */
  private judge(answer: Record<string, unknown>): McpAccessToken {
    if (answer.active !== true) throw new McpTokenError(McpTokenMessages.inactive);
    if (answer.token_type !== undefined && String(answer.token_type).toLowerCase() !== 'bearer') {
      throw new McpTokenError(McpTokenMessages.notAccessToken);
    }
    const now = Date.now() / 1000;
    const expiresAt = numericDateClaim(answer, 'exp');
    if (answer.exp !== undefined && expiresAt === undefined)
      throw new McpTokenError(McpTokenMessages.invalidClaim('exp'));
    if (expiresAt !== undefined && expiresAt <= now - this.clockToleranceSec) {
      throw new McpTokenError(McpTokenMessages.expired);
    }
    const notBefore = numericDateClaim(answer, 'nbf');
    if (notBefore !== undefined && notBefore > now + this.clockToleranceSec) {
      throw new McpTokenError(McpTokenMessages.notYetValid);
    }
    if (answer.iss !== undefined && !(typeof answer.iss === 'string' && this.issuers.has(answer.iss))) {
      throw new McpTokenError(McpTokenMessages.untrustedIssuer);
    }
    // RFC 8707 / MCP 2026-07-28 "Authorization": the token must have been issued for this resource. An answer that
    // names no audience says nothing of the kind; only an explicit opt-out accepts it.
    if (answer.aud === undefined) {
      if (this.requireAudience) throw new McpTokenError(McpTokenMessages.noAudience);
    } else if (!audienceIncludes(answer.aud, this.options.resource)) {
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
      issuer: typeof answer.iss === 'string' ? answer.iss : this.soleIssuer,
      expiresAt,
      claims: Object.freeze({ ...answer }),
    });
  }

  /**
   * One token's introspection failed while the endpoint answered: that token is refused for the retry window, and
   * the endpoint is taken to be down only when `outageThreshold` distinct tokens failed in that window.
   */
  private tokenFailed(key: string, reason: string): McpTokenError {
    const now = Date.now();
    const refusal = new McpTokenError(McpTokenMessages.introspectionUnavailable);
    this.refused.set(key, refusal, now + this.retryAfterFailureMs, now);
    for (const [failed, at] of this.failing) if (at <= now - this.retryAfterFailureMs) this.failing.delete(failed);
    if (this.retryAfterFailureMs > 0) this.failing.set(key, now);
    if (this.failing.size >= this.outageThreshold)
      return this.outage(`${this.failing.size} tokens in a row could not be checked (last: ${reason})`);
    return refusal;
  }

  /** The endpoint is down: every token is refused without asking for the retry window, and that is said once. */
  private outage(reason: string, cause?: unknown): McpTokenError {
    this.failing.clear();
    this.unavailableUntil = Date.now() + this.retryAfterFailureMs;
    if (!this.down) {
      this.down = true;
      this.logger.warn(
        `The introspection endpoint ${this.introspection.endpoint} gave no answer (${reason}); bearer tokens ` +
          'are refused until it does',
      );
    }
    return new McpTokenError(McpTokenMessages.introspectionUnavailable, { cause });
  }

  /** A good answer: the endpoint works, so earlier failures were the tokens' own. */
  private answered(): void {
    this.failing.clear();
    if (!this.down) return;
    this.down = false;
    this.logger.log(`The introspection endpoint ${this.introspection.endpoint} answers again`);
  }
}

/** 503: as many introspections as `maxInFlight` allows are running; the client is told when to come back. */
function introspectionBusy(): McpError {
  return new McpError(
    McpErrorCode.InternalError,
    'Service Unavailable: too many bearer tokens are being checked with the authorization server; retry shortly',
    { retryAfterSeconds: INTROSPECTION_BUSY_RETRY_AFTER_SECONDS },
    503,
  );
}

/** `application/x-www-form-urlencoded` encoding of one value (spaces as `+`). */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}
