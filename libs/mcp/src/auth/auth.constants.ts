/** Signature algorithms the JWT verifier accepts by default (`auth.jwt.algorithms`). */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/**
 * Every algorithm `auth.jwt.algorithms` may name: asymmetric signatures only. `none` would accept unsigned tokens,
 * and an HMAC algorithm would let anyone who knows the (public) verification key sign tokens.
 */
export const SUPPORTED_JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Clock skew tolerated for `exp` and `nbf` by default, in seconds (`auth.jwt.clockToleranceSec`). */
export const DEFAULT_CLOCK_TOLERANCE_SEC = 30;

/** How long an introspection answer is cached by default, in milliseconds (`auth.introspection.cacheTtlMs`). */
export const DEFAULT_INTROSPECTION_CACHE_TTL_MS = 60_000;

/** Most introspection answers cached at once (least recently used first out), refusals in a cache of their own. */
export const DEFAULT_INTROSPECTION_CACHE_ENTRIES = 10_000;

/**
 * How long a refused token's answer is remembered by default, in milliseconds (`auth.introspection.inactiveCacheTtlMs`):
 * a client retrying with a revoked or junk token is not one introspection per request. An inactive token never becomes
 * active again, so the only cost of the cache is memory, which `DEFAULT_INTROSPECTION_CACHE_ENTRIES` bounds.
 */
export const DEFAULT_INTROSPECTION_INACTIVE_CACHE_TTL_MS = 10_000;

/** Most introspection calls in flight at once by default (`auth.introspection.maxInFlight`); more are answered 503. */
export const DEFAULT_INTROSPECTION_MAX_IN_FLIGHT = 64;

/**
 * How many distinct tokens must fail to be introspected (an answer that is not 200, nor 400 about the token) within the
 * retry window, with no good answer between them, before the endpoint is taken to be down and every token refused for
 * that window. One token the authorization server rate-limits or chokes on counts against that token only.
 */
export const DEFAULT_INTROSPECTION_OUTAGE_THRESHOLD = 5;

/** `Retry-After` of the 503 answered when `auth.introspection.maxInFlight` calls are in flight, in seconds. */
export const INTROSPECTION_BUSY_RETRY_AFTER_SECONDS = 1;

/** Longest wait for the authorization server (metadata, keys, introspection), in milliseconds. */
export const DEFAULT_AUTH_FETCH_TIMEOUT_MS = 5_000;

/** After a failed fetch of keys or an introspection outage, tokens are refused without retrying for this long. */
export const DEFAULT_AUTH_RETRY_AFTER_FAILURE_MS = 5_000;

/**
 * Minimum time between two fetches of a key set caused by a token naming an unknown key id (a rotation), in
 * milliseconds: a stream of forged key ids cannot turn into a stream of requests to the authorization server.
 */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;

/** How long a fetched key set is used before it is fetched again, in milliseconds. */
export const DEFAULT_JWKS_MAX_AGE_MS = 600_000;

/** Largest metadata document or introspection answer read, in bytes. */
export const MAX_AUTH_RESPONSE_BYTES = 512 * 1024;

/** Longest bearer token considered, in characters; a longer one is refused unread. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** The scope that asks for refresh tokens: never advertised by a resource server (MCP 2026-07-28, T-AUTH-10). */
export const OFFLINE_ACCESS_SCOPE = 'offline_access';

/** The well-known path of Protected Resource Metadata (RFC 9728 §3). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** How long a verified JWT is remembered (by its hash) before its signature is checked again, in milliseconds. */
export const DEFAULT_VERIFIED_JWT_CACHE_TTL_MS = 60_000;

/** Most verified JWTs remembered at once (least recently used first out). */
export const DEFAULT_VERIFIED_JWT_CACHE_ENTRIES = 10_000;
