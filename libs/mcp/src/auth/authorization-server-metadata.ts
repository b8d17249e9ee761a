import { AuthServerUnreachableError, requestAuthServerJson } from './auth-http.util.js';

/** The fields of an authorization server's metadata (RFC 8414 §2) that a resource server reads. */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly jwks_uri?: string;
  readonly introspection_endpoint?: string;
  readonly [field: string]: unknown;
}

/**
 * Where an issuer's metadata may be, in the order MCP clients try them:
 * - no path (`https://as.example.com`): `/.well-known/oauth-authorization-server` (RFC 8414), then
 *   `/.well-known/openid-configuration` (OpenID Connect Discovery);
 * - with a path (`https://as.example.com/tenant1`): `/.well-known/oauth-authorization-server/tenant1`,
 *   `/.well-known/openid-configuration/tenant1` (both inserted after the host, RFC 8414 §3.1), then
 *   `/tenant1/.well-known/openid-configuration` (appended, as OpenID Connect Discovery 1.0 §4 says).
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const at = (wellKnown: string) => `${url.origin}${wellKnown}`;
  if (!path) return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

/**
 * Fetches an issuer's metadata from the first location of `authorizationServerMetadataUrls` that has it. A location
 * answering 4xx is skipped; a network failure, a timeout or a 5xx ends the search (the server is down, not elsewhere).
 * The document's `issuer` must be exactly `issuer` (RFC 8414 §3.3), or it is not used.
 *
 * @throws AuthServerUnreachableError when no location gave a usable document
 */
export async function fetchAuthorizationServerMetadata(
  issuer: string,
  limits: { timeoutMs: number },
): Promise<AuthorizationServerMetadata> {
  const tried: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const { status, body } = await requestAuthServerJson(url, {}, limits);
    if (status >= 500) throw new AuthServerUnreachableError(`${url}: status ${status}`);
    if (status !== 200) {
      tried.push(`${url} (${status})`);
      continue;
    }
    if (!body) throw new AuthServerUnreachableError(`${url}: not a JSON object`);
    if (body.issuer !== issuer) {
      throw new AuthServerUnreachableError(`${url}: its "issuer" is not ${issuer} (RFC 8414 §3.3)`);
    }
    return body as AuthorizationServerMetadata;
  }
  throw new AuthServerUnreachableError(`no metadata for ${issuer} at ${tried.join(', ')}`);
}
