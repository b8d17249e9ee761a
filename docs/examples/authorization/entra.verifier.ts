import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { McpAccessToken } from 'nest-mcp';
import { McpTokenError, type McpTokenVerifier } from 'nest-mcp/backend';

// #region docs:entra-verifier
/** Your tenant and the app registration that represents this MCP server. */
const TENANT_ID = '7f3c1a52-0000-4000-8000-000000000001';
const API_CLIENT_ID = 'c1d2e3f4-0000-4000-8000-000000000002';
const ISSUER = `https://login.microsoftonline.com/${TENANT_ID}/v2.0`;
const KEYS = createRemoteJWKSet(new URL(`https://login.microsoftonline.com/${TENANT_ID}/discovery/v2.0/keys`));

/**
 * Microsoft Entra ID (v2.0 access tokens): `aud` is the API's application (client) ID, not a URL, so the built-in
 * verifier (which compares `aud` with `auth.resource`) cannot be used as is. This one checks the signature, the issuer,
 * the audience and the lifetime with jose, and turns delegated scopes (`scp`, e.g. `Ops.Read`) and application
 * permissions (`roles`, app-only tokens) into the token's scopes.
 */
export class EntraTokenVerifier implements McpTokenVerifier {
  async verify(token: string): Promise<McpAccessToken> {
    try {
      const { payload } = await jwtVerify(token, KEYS, {
        issuer: ISSUER,
        audience: API_CLIENT_ID,
        algorithms: ['RS256'],
        clockTolerance: 30,
      });
      const delegated = typeof payload.scp === 'string' ? payload.scp.split(' ') : [];
      const roles = Array.isArray(payload.roles)
        ? payload.roles.filter((role): role is string => typeof role === 'string')
        : [];
      // `oid` is the user's (or the calling app's) object id: stable across the tenant's applications.
      const subject = typeof payload.oid === 'string' ? payload.oid : payload.sub;
      if (!subject) throw new McpTokenError('The token has no subject');
      return {
        subject,
        scopes: [...delegated, ...roles],
        clientId: typeof payload.azp === 'string' ? payload.azp : undefined,
        issuer: payload.iss,
        expiresAt: payload.exp,
        claims: payload,
      };
    } catch (error) {
      if (error instanceof McpTokenError) throw error;
      if (error instanceof errors.JWTExpired) throw new McpTokenError('The token expired');
      // Never the token itself in the description: the client sees it.
      throw new McpTokenError('The token could not be verified', { cause: error });
    }
  }
}
// #endregion docs:entra-verifier
