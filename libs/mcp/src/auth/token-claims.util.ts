/**
 * The scopes a token grants: its `scope` claim (a space-separated string, RFC 9068 / RFC 8693), or `scp` as some
 * providers write it (a space-separated string, or an array of strings). Malformed claims grant nothing.
 */
export function scopesOfClaims(claims: Readonly<Record<string, unknown>>): string[] {
  const value = typeof claims.scope === 'string' ? claims.scope : claims.scp;
  const scopes = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
  return [...new Set(scopes.filter((scope): scope is string => typeof scope === 'string' && scope !== ''))];
}

/** The OAuth client the token was issued to: `client_id` (RFC 9068), else `azp` (OpenID Connect). */
export function clientIdOfClaims(claims: Readonly<Record<string, unknown>>): string | undefined {
  const value = typeof claims.client_id === 'string' ? claims.client_id : claims.azp;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A NumericDate claim (`exp`, `nbf`, `iat`), or `undefined` when absent or not a finite number. */
export function numericDateClaim(claims: Readonly<Record<string, unknown>>, name: string): number | undefined {
  const value = claims[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
