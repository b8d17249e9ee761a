import { Logger, type LoggerService } from '@nestjs/common';
import {
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyOptions,
  type KeyObject,
  type CryptoKey,
} from 'jose';
import type { McpAuthOptions } from '../config/mcp-options.interface.js';
import { type McpAccessToken, McpTokenError, type McpTokenVerifier } from '../protocol/access-token.interface.js';
import {
  DEFAULT_AUTH_FETCH_TIMEOUT_MS,
  DEFAULT_AUTH_RETRY_AFTER_FAILURE_MS,
  DEFAULT_CLOCK_TOLERANCE_SEC,
  DEFAULT_JWKS_COOLDOWN_MS,
  DEFAULT_JWKS_MAX_AGE_MS,
  DEFAULT_JWT_ALGORITHMS,
  DEFAULT_VERIFIED_JWT_CACHE_ENTRIES,
  DEFAULT_VERIFIED_JWT_CACHE_TTL_MS,
  MAX_TOKEN_LENGTH,
} from './auth.constants.js';
import { McpTokenMessages } from './auth.messages.js';
import { fetchAuthorizationServerMetadata } from './authorization-server-metadata.js';
import { RemoteKeySource, type RemoteKeySourceSettings, SigningKeysUnavailableError } from './remote-key.source.js';
import { audienceIncludes, parseAbsoluteUrl } from './resource-uri.util.js';
import { clientIdOfClaims, numericDateClaim, scopesOfClaims } from './token-claims.util.js';
import { TokenCache, tokenCacheKey } from './token.cache.js';

/** What `JwtTokenVerifier` needs of the `auth` options. */
export type JwtTokenVerifierOptions = Pick<McpAuthOptions, 'resource' | 'authorizationServers' | 'jwt'>;

/** Timing and logging of `JwtTokenVerifier`, beyond the module options (defaults in `auth.constants.ts`). */
export interface JwtTokenVerifierSettings {
  /** Longest wait for one fetch of metadata or keys, in milliseconds. Default 5,000. */
  fetchTimeoutMs?: number;
  /**
   * How long a verified token is remembered, by its SHA-256, so that the same token on the next calls skips the
   * signature check (never beyond its `exp`), in milliseconds. A key the issuer withdraws stops verifying its tokens
   * after at most this long. Default 60,000; 0 checks every call.
   */
  verifiedCacheTtlMs?: number;
  /** Most verified tokens remembered at once. Default 10,000. */
  verifiedCacheEntries?: number;
  /** Minimum time between two key-set fetches caused by an unknown key id (rotation), in milliseconds. Default 30,000. */
  keysCooldownMs?: number;
  /** How long a fetched key set is used before it is fetched again, in milliseconds. Default 600,000. */
  keysMaxAgeMs?: number;
  /** After a failed fetch, tokens are refused without another attempt for this long, in milliseconds. Default 5,000. */
  retryAfterFailureMs?: number;
  /** Where outages are reported. Default: a Nest `Logger` named `JwtTokenVerifier`. */
  logger?: Pick<LoggerService, 'warn' | 'log'>;
}

/** The shape of a JWS in compact serialization: three base64url parts, the last one empty only for `alg: none`. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Verifies JWT access tokens (RFC 9068) with jose, as an OAuth 2.1 resource server (MCP 2026-07-28 "Authorization"):
 *
 * - the signature, with the keys the issuer publishes: `auth.jwt.jwksUri`, or the `jwks_uri` of the issuer's metadata
 *   (RFC 8414, then OpenID Connect Discovery), fetched on first use and cached; a token naming an unknown key id
 *   makes the key set be fetched again (at most once per cooldown), so rotated keys are picked up;
 * - the algorithm, from an allowlist of asymmetric algorithms (never `none`, never HMAC);
 * - the issuer (`iss`), exactly one of `auth.authorizationServers`;
 * - the audience (`aud`), this resource (`auth.resource`; scheme and host compared case-insensitively);
 * - `exp` (required) and `nbf`, with `auth.jwt.clockToleranceSec` of skew; `sub` (required);
 * - the `typ` header, when `auth.jwt.requiredType` asks for one (RFC 9068 `at+jwt`).
 *
 * A refused token rejects with `McpTokenError` and a description that never quotes it. When the keys cannot be
 * fetched, every token is refused (fail closed) and one warning is logged per outage.
 *
 * @example new JwtTokenVerifier({ resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://id.example.com'] })
 */
export class JwtTokenVerifier implements McpTokenVerifier {
  private readonly resource: string;
  private readonly issuers: ReadonlySet<string>;
  private readonly algorithms: string[];
  private readonly clockTolerance: number;
  /** The `typ` header required (`jwt.requiredType`), compared by jose case-insensitively, `application/` optional. */
  private readonly requiredType: string | undefined;
  private readonly keySources = new Map<string, RemoteKeySource>();
  private readonly sharedKeys: RemoteKeySource | undefined;
  private readonly sourceSettings: RemoteKeySourceSettings;
  private readonly logger: Pick<LoggerService, 'warn' | 'log'>;
  private readonly fetchTimeoutMs: number;
  private readonly verified: TokenCache<McpAccessToken>;
  private readonly verifiedTtlMs: number;

  constructor(options: JwtTokenVerifierOptions, settings: JwtTokenVerifierSettings = {}) {
    this.resource = options.resource;
    this.issuers = new Set(options.authorizationServers);
    this.algorithms = [...(options.jwt?.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
    this.clockTolerance = options.jwt?.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
    this.requiredType = options.jwt?.requiredType;
    this.logger = settings.logger ?? new Logger(JwtTokenVerifier.name);
    this.fetchTimeoutMs = settings.fetchTimeoutMs ?? DEFAULT_AUTH_FETCH_TIMEOUT_MS;
    this.verifiedTtlMs = settings.verifiedCacheTtlMs ?? DEFAULT_VERIFIED_JWT_CACHE_TTL_MS;
    this.verified = new TokenCache(
      this.verifiedTtlMs > 0 ? (settings.verifiedCacheEntries ?? DEFAULT_VERIFIED_JWT_CACHE_ENTRIES) : 0,
    );
    this.sourceSettings = {
      timeoutMs: this.fetchTimeoutMs,
      cooldownMs: settings.keysCooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
      maxAgeMs: settings.keysMaxAgeMs ?? DEFAULT_JWKS_MAX_AGE_MS,
      retryAfterFailureMs: settings.retryAfterFailureMs ?? DEFAULT_AUTH_RETRY_AFTER_FAILURE_MS,
    };
    const jwksUri = options.jwt?.jwksUri;
    if (jwksUri !== undefined) {
      const url = parseAbsoluteUrl(jwksUri);
      if (!url) throw new Error(`JwtTokenVerifier: "jwt.jwksUri" must be an absolute URL`);
      this.sharedKeys = new RemoteKeySource(jwksUri, async () => url, this.sourceSettings, this.logger);
    }
  }

  /** Resolves with what the token says when it is valid for this resource; rejects with `McpTokenError` otherwise. */
  async verify(token: string): Promise<McpAccessToken> {
    if (token.length > MAX_TOKEN_LENGTH) throw new McpTokenError(McpTokenMessages.tooLong);
    // The same token on the next calls: a hash lookup instead of a signature check (only valid tokens are cached,
    // each until the earlier of its `exp` and the cache's TTL).
    const cacheKey = this.verifiedTtlMs > 0 ? tokenCacheKey(token) : undefined;
    const cached = cacheKey === undefined ? undefined : this.verified.get(cacheKey);
    if (cached) return cached;
    if (!COMPACT_JWS.test(token)) throw new McpTokenError(McpTokenMessages.notJwt);
    let issuer: unknown;
    try {
      const header = decodeProtectedHeader(token);
      if (typeof header.alg !== 'string' || !this.algorithms.includes(header.alg)) {
        throw new McpTokenError(McpTokenMessages.algorithm);
      }
      issuer = decodeJwt(token).iss;
    } catch (error) {
      throw error instanceof McpTokenError ? error : new McpTokenError(McpTokenMessages.malformed, { cause: error });
    }
    // Chosen before any key is fetched: a token from an unknown issuer never makes this server contact anyone.
    if (typeof issuer !== 'string' || !this.issuers.has(issuer)) {
      throw new McpTokenError(McpTokenMessages.untrustedIssuer);
    }
    const payload = await this.verifySignatureAndTimes(token, issuer);
    if (!audienceIncludes(payload.aud, this.resource)) throw new McpTokenError(McpTokenMessages.wrongAudience);
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new McpTokenError(McpTokenMessages.noSubject);
    const verified: McpAccessToken = Object.freeze({
      subject: payload.sub,
      scopes: Object.freeze(scopesOfClaims(payload)),
      clientId: clientIdOfClaims(payload),
      issuer,
      expiresAt: numericDateClaim(payload, 'exp'),
      claims: Object.freeze(payload),
    });
    const now = Date.now();
    // `exp` is required (jose checked it): remembered no longer than the token is valid, without the clock tolerance.
    if (cacheKey !== undefined && verified.expiresAt !== undefined) {
      this.verified.set(cacheKey, verified, Math.min(verified.expiresAt * 1000, now + this.verifiedTtlMs), now);
    }
    return verified;
  }

  private async verifySignatureAndTimes(token: string, issuer: string): Promise<JWTPayload> {
    const keys = this.keysOf(issuer);
    const options: JWTVerifyOptions = {
      algorithms: this.algorithms,
      issuer,
      clockTolerance: this.clockTolerance,
      requiredClaims: ['exp', 'sub'],
      ...(this.requiredType !== undefined && { typ: this.requiredType }),
    };
    try {
      return (await jwtVerify(token, keys.getKey, options)).payload;
    } catch (error) {
      if (error instanceof errors.JWKSMultipleMatchingKeys) return this.tryEachKey(token, error, options);
      throw this.refusal(error);
    }
  }

  /** A token without `kid` and several keys that fit it: the one whose signature verifies wins (jose's recipe). */
  private async tryEachKey(
    token: string,
    candidates: errors.JWKSMultipleMatchingKeys,
    options: JWTVerifyOptions,
  ): Promise<JWTPayload> {
    for await (const key of candidates as unknown as AsyncIterable<CryptoKey | KeyObject>) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (error) {
        if (error instanceof errors.JWSSignatureVerificationFailed) continue;
        throw this.refusal(error);
      }
    }
    throw new McpTokenError(McpTokenMessages.badSignature);
  }

  private keysOf(issuer: string): RemoteKeySource {
    if (this.sharedKeys) return this.sharedKeys;
    let source = this.keySources.get(issuer);
    if (!source) {
      const locate = async () => {
        const metadata = await fetchAuthorizationServerMetadata(issuer, { timeoutMs: this.fetchTimeoutMs });
        const url = parseAbsoluteUrl(metadata.jwks_uri);
        if (!url) throw new Error(`the metadata of ${issuer} has no valid "jwks_uri"`);
        return url;
      };
      source = new RemoteKeySource(issuer, locate, this.sourceSettings, this.logger);
      this.keySources.set(issuer, source);
    }
    return source;
  }

  /** The client-facing reason for a jose error. */
  private refusal(error: unknown): McpTokenError {
    if (error instanceof McpTokenError) return error;
    const description = describeJoseError(error);
    if (description === McpTokenMessages.unverifiable) {
      this.logger.warn(`A bearer token could not be verified: ${error instanceof Error ? error.name : typeof error}`);
    }
    return new McpTokenError(description, { cause: error });
  }
}

function describeJoseError(error: unknown): string {
  if (error instanceof SigningKeysUnavailableError) return McpTokenMessages.keysUnavailable;
  if (error instanceof errors.JWTExpired) return McpTokenMessages.expired;
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' && error.reason === 'check_failed') return McpTokenMessages.notYetValid;
    if (error.claim === 'iss') return McpTokenMessages.untrustedIssuer;
    if (error.claim === 'sub' && error.reason === 'missing') return McpTokenMessages.noSubject;
    if (error.claim === 'exp' && error.reason === 'missing') return McpTokenMessages.noExpiry;
    if (error.claim === 'typ') return McpTokenMessages.wrongType;
    return McpTokenMessages.invalidClaim(error.claim);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return McpTokenMessages.badSignature;
  if (error instanceof errors.JWKSNoMatchingKey) return McpTokenMessages.unknownKey;
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return McpTokenMessages.algorithm;
  }
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return McpTokenMessages.malformed;
  return McpTokenMessages.unverifiable;
}
