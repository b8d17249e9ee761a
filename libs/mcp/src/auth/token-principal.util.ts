import type { McpAccessToken } from '../protocol/access-token.interface.js';

/**
 * Between the issuer and the subject of an issuer-qualified principal. An issuer identifier never holds it (RFC 8414
 * §2: no fragment; `auth.authorizationServers` refuses one at startup), so the first `#` splits the two unambiguously,
 * whatever the subject holds.
 */
export const PRINCIPAL_ISSUER_SEPARATOR = '#';

/**
 * The principal of a verified token when `auth.principal` does not name one: its subject while one authorization
 * server is trusted, else `<issuer>#<subject>` — two issuers may both have an `alice`, and nothing they share may be
 * keyed by `alice` alone (docs/authorization.md, "One principal everywhere"). Undefined when several issuers are
 * trusted and the token names none: nobody can tell whose subject it is.
 *
 * @example defaultPrincipal(['https://a.example', 'https://b.example'], token) // 'https://b.example#alice'
 */
export function defaultPrincipal(authorizationServers: readonly string[], token: McpAccessToken): string | undefined {
  if (authorizationServers.length <= 1) return token.subject;
  if (typeof token.issuer !== 'string' || token.issuer === '') return undefined;
  return `${token.issuer}${PRINCIPAL_ISSUER_SEPARATOR}${token.subject}`;
}
