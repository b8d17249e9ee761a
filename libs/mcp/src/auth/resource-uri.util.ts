import { isIPv4 } from 'node:net';

/** Parses an absolute URL, or `undefined` (no exception) when `value` is not one. */
export function parseAbsoluteUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * The comparable form of a resource URI: the URL parser lower-cases the scheme and host, drops a default port and
 * normalizes percent-encoding, so `HTTPS://MCP.Example.com:443/mcp` and `https://mcp.example.com/mcp` compare equal
 * (MCP 2026-07-28: accept upper-case scheme and host forms of the canonical URI, T-AUTH-11). The path stays
 * case-sensitive. `undefined` when `uri` is not an absolute URL.
 */
export function normalizeResourceUri(uri: unknown): string | undefined {
  return parseAbsoluteUrl(uri)?.href;
}

/** Whether two resource URIs name the same resource once normalized (`normalizeResourceUri`). */
export function isSameResource(a: unknown, b: unknown): boolean {
  const left = normalizeResourceUri(a);
  return left !== undefined && left === normalizeResourceUri(b);
}

/**
 * Whether an `aud` claim (a string or an array of strings, RFC 7519 §4.1.3) names `resource`. Anything else in the
 * claim (numbers, objects) never matches.
 */
export function audienceIncludes(audience: unknown, resource: string): boolean {
  const values = Array.isArray(audience) ? audience : [audience];
  return values.some((value) => typeof value === 'string' && isSameResource(value, resource));
}

/** `localhost`, 127.0.0.0/8 or `[::1]`, as the URL parser writes a hostname: where plain `http` is acceptable. */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || (hostname.startsWith('127.') && isIPv4(hostname));
}
