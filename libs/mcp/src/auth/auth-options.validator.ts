import type { McpAuthOptions } from '../config/mcp-options.interface.js';
import { SUPPORTED_JWT_ALGORITHMS } from './auth.constants.js';
import { isLoopbackHostname, parseAbsoluteUrl } from './resource-uri.util.js';

/** A `typ` header value: a media type, its `application/` prefix optional (RFC 7515 §4.1.9). */
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+(?:\/[A-Za-z0-9!#$&^_.+-]+)?$/;

/** A scope token (RFC 6749 §3.3). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Checks the `auth` option at startup and returns a copy to keep (arrays copied, so a later change to the caller's
 * object changes nothing). Throws one `Error` listing every problem, each naming its option:
 *
 * - `resource`: an absolute http(s) URL without fragment, query or credentials;
 * - `authorizationServers`: at least one issuer, each an absolute http(s) URL without fragment or query (RFC 8414 §2);
 * - https for every URL (resource, issuers, `jwt.jwksUri`, `introspection.endpoint`), except on loopback hosts;
 * - one way to verify tokens: `verifier`, or `introspection`, or the JWT verifier (`jwt`), not two of them;
 * - `jwt.algorithms` only asymmetric signature algorithms (never `none`, never HMAC); `jwt.requiredType` a media type;
 * - well-formed scopes (`scopesSupported`, `scopeHierarchy`), numbers in range, functions where functions go.
 *
 * The client secret is never echoed in a message.
 */
export function validateAuthOptions(options: unknown): Readonly<McpAuthOptions> {
  const problems: string[] = [];
  if (options === null || typeof options !== 'object') {
    throw new Error('McpModule: option "auth" must be an object with "resource" and "authorizationServers"');
  }
  const auth = options as Partial<Record<keyof McpAuthOptions, unknown>>;
  const problem = (text: string) => problems.push(text);

  checkUrl(auth.resource, '"auth.resource"', problem, { query: false });
  if (!Array.isArray(auth.authorizationServers) || auth.authorizationServers.length === 0) {
    problem('"auth.authorizationServers" must list at least one issuer URL');
  } else {
    auth.authorizationServers.forEach((issuer, index) =>
      checkUrl(issuer, `"auth.authorizationServers[${index}]"`, problem, { query: false }),
    );
  }
  if (auth.scopesSupported !== undefined) checkScopes(auth.scopesSupported, '"auth.scopesSupported"', problem);

  const ways = (['verifier', 'introspection', 'jwt'] as const).filter((name) => auth[name] !== undefined);
  if (ways.length > 1) {
    problem(
      `"auth.${ways.join('" and "auth.')}" are exclusive: tokens are verified one way (a custom verifier, introspection, or JWTs)`,
    );
  }
  if (auth.verifier !== undefined && typeof (auth.verifier as { verify?: unknown })?.verify !== 'function') {
    problem('"auth.verifier" must be an object with a verify(token) method');
  }
  if (auth.jwt !== undefined) checkJwt(auth.jwt, problem);
  if (auth.introspection !== undefined) checkIntrospection(auth.introspection, problem);
  if (auth.scopeHierarchy !== undefined) checkHierarchy(auth.scopeHierarchy, problem);
  if (auth.principal !== undefined && typeof auth.principal !== 'function') {
    problem('"auth.principal" must be a function (token) => string');
  }
  if (auth.resourceName !== undefined && (typeof auth.resourceName !== 'string' || auth.resourceName === '')) {
    problem('"auth.resourceName" must be a non-empty string');
  }
  if (auth.resourceDocumentation !== undefined) {
    checkUrl(auth.resourceDocumentation, '"auth.resourceDocumentation"', problem, { query: true, httpsOnly: false });
  }

  if (problems.length === 1) throw new Error(`McpModule: option ${problems[0]}`);
  if (problems.length > 1)
    throw new Error(`McpModule: invalid "auth" options:\n${problems.map((text) => `  - ${text}`).join('\n')}`);

  const valid = options as McpAuthOptions;
  return {
    ...valid,
    authorizationServers: [...valid.authorizationServers],
    ...(valid.scopesSupported ? { scopesSupported: [...valid.scopesSupported] } : {}),
    ...(valid.jwt
      ? { jwt: { ...valid.jwt, ...(valid.jwt.algorithms ? { algorithms: [...valid.jwt.algorithms] } : {}) } }
      : {}),
    ...(valid.introspection ? { introspection: { ...valid.introspection } } : {}),
    ...(valid.scopeHierarchy
      ? {
          scopeHierarchy: Object.fromEntries(
            Object.entries(valid.scopeHierarchy).map(([scope, implied]) => [scope, [...implied]]),
          ),
        }
      : {}),
  };
}

/** An absolute http(s) URL, https unless on a loopback host, without fragment or credentials (and query, unless allowed). */
function checkUrl(
  value: unknown,
  name: string,
  problem: (text: string) => void,
  rules: { query: boolean; httpsOnly?: boolean },
): void {
  const url = parseAbsoluteUrl(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    problem(`${name} must be an absolute http(s) URL${typeof value === 'string' ? `, got "${value}"` : ''}`);
    return;
  }
  if (rules.httpsOnly !== false && url.protocol === 'http:' && !isLoopbackHostname(url.hostname)) {
    problem(`${name} must use https (plain http is accepted on loopback hosts only), got "${url.href}"`);
  }
  if (url.hash || (typeof value === 'string' && value.includes('#'))) problem(`${name} must not have a fragment`);
  if (!rules.query && url.search) problem(`${name} must not have a query`);
  if (url.username || url.password) problem(`${name} must not hold credentials`);
}

function checkScopes(value: unknown, name: string, problem: (text: string) => void): void {
  if (!Array.isArray(value) || value.some((scope) => typeof scope !== 'string' || !SCOPE_TOKEN.test(scope))) {
    problem(`${name} must be an array of scopes (printable ASCII without spaces, quotes or backslashes)`);
  }
}

function checkJwt(value: unknown, problem: (text: string) => void): void {
  if (value === null || typeof value !== 'object') {
    problem('"auth.jwt" must be an object');
    return;
  }
  const jwt = value as Record<string, unknown>;
  if (jwt.jwksUri !== undefined) checkUrl(jwt.jwksUri, '"auth.jwt.jwksUri"', problem, { query: true });
  if (jwt.algorithms !== undefined) {
    const algorithms = jwt.algorithms;
    if (!Array.isArray(algorithms) || algorithms.length === 0) {
      problem('"auth.jwt.algorithms" must list at least one algorithm');
    } else {
      const refused = algorithms.filter((alg) => !SUPPORTED_JWT_ALGORITHMS.includes(alg as string));
      if (refused.length) {
        problem(
          `"auth.jwt.algorithms" may name only asymmetric signature algorithms (${SUPPORTED_JWT_ALGORITHMS.join(', ')}); ` +
            `not ${refused.map((alg) => JSON.stringify(alg)).join(', ')} ("none" and HMAC would let anyone mint tokens)`,
        );
      }
    }
  }
  if (jwt.requiredType !== undefined && (typeof jwt.requiredType !== 'string' || !MEDIA_TYPE.test(jwt.requiredType))) {
    problem('"auth.jwt.requiredType" must be a JWT type such as "at+jwt" or "application/at+jwt"');
  }
  if (jwt.clockToleranceSec !== undefined) {
    const tolerance = jwt.clockToleranceSec;
    if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0 || tolerance > 3600) {
      problem('"auth.jwt.clockToleranceSec" must be a number of seconds from 0 to 3600');
    }
  }
}

function checkIntrospection(value: unknown, problem: (text: string) => void): void {
  if (value === null || typeof value !== 'object') {
    problem('"auth.introspection" must be an object with "endpoint", "clientId" and "clientSecret"');
    return;
  }
  const introspection = value as Record<string, unknown>;
  checkUrl(introspection.endpoint, '"auth.introspection.endpoint"', problem, { query: true });
  if (typeof introspection.clientId !== 'string' || introspection.clientId === '') {
    problem('"auth.introspection.clientId" must be a non-empty string');
  }
  if (typeof introspection.clientSecret !== 'string' || introspection.clientSecret === '') {
    problem('"auth.introspection.clientSecret" must be a non-empty string');
  }
  for (const name of ['cacheTtlMs', 'inactiveCacheTtlMs'] as const) {
    const ttl = introspection[name];
    if (ttl !== undefined && !isWholeNumber(ttl, 0)) {
      problem(`"auth.introspection.${name}" must be a whole number of milliseconds, 0 or more (0 turns the cache off)`);
    }
  }
  if (introspection.maxInFlight !== undefined && !isWholeNumber(introspection.maxInFlight, 1)) {
    problem('"auth.introspection.maxInFlight" must be a whole number, 1 or more');
  }
  if (introspection.requireAudience !== undefined && typeof introspection.requireAudience !== 'boolean') {
    problem('"auth.introspection.requireAudience" must be a boolean');
  }
}

function isWholeNumber(value: unknown, min: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}

function checkHierarchy(value: unknown, problem: (text: string) => void): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problem('"auth.scopeHierarchy" must be an object mapping a scope to the scopes it implies');
    return;
  }
  for (const [scope, implied] of Object.entries(value)) {
    if (!SCOPE_TOKEN.test(scope))
      problem(`"auth.scopeHierarchy" has a key that is not a scope: ${JSON.stringify(scope)}`);
    checkScopes(implied, `"auth.scopeHierarchy[${JSON.stringify(scope)}]"`, problem);
  }
}
