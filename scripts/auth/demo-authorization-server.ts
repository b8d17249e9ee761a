import { randomBytes } from 'node:crypto';
import { type LocalAuthorizationServer, startAuthorizationServer } from './authorization-server.js';

/**
 * The local authorization server of `npm start -- --auth`: the ops console's scopes and three pre-registered clients,
 * on loopback. `scripts/start-demo.mjs --auth` runs it in its own process (compiled on the fly by
 * `test/support/ts-child.loader.mjs`) for as long as the console runs; `test/server/demo-auth.e2e-spec.ts` starts it that way.
 */

/** The ops console's scopes, narrowest first: `ops:admin` implies `ops:write`, which implies `ops:read`. */
export const OPS_SCOPES = ['ops:read', 'ops:write', 'ops:admin'] as const;

/** A confidential client for scripts and services (client credentials), allowed every scope. */
export const OPS_SCRIPTS_CLIENT_ID = 'ops-scripts';
/** A confidential client allowed `ops:read` only: it sees the read tools and nothing else. */
export const OPS_VIEWER_CLIENT_ID = 'ops-viewer';
/** A public client for interactive tools (authorization code + PKCE, no secret), e.g. the MCP Inspector. */
export const OPS_APP_CLIENT_ID = 'ops-console-app';

/**
 * Redirect URIs of the public client: any loopback port for `http://127.0.0.1/callback` (RFC 8252 §7.3, a CLI's
 * one-shot listener), and the MCP Inspector's two callback pages.
 */
export const OPS_APP_REDIRECT_URIS = [
  'http://127.0.0.1/callback',
  'http://localhost:6274/oauth/callback',
  'http://localhost:6274/oauth/callback/debug',
];

/** Options of `startDemoAuthorizationServer`. */
export interface DemoAuthorizationServerOptions {
  /** The MCP endpoint's canonical URI: tokens are issued for it and for its admin server (`adminResourceOf`). */
  resource: string;
  /** The loopback port. Default 0 (any free port). */
  port?: number;
  /** The secret of both confidential clients. Default: random, different on every start. */
  clientSecret?: string;
}

/** The running server, and what a user needs to get a token from it. */
export interface DemoAuthorizationServer {
  readonly server: LocalAuthorizationServer;
  readonly issuer: string;
  readonly resource: string;
  readonly clientSecret: string;
  /** How to get a token and connect, one line each, for the terminal. */
  instructions(): string[];
  close(): Promise<void>;
}

/** The admin server's resource URI beside the console's (`…/mcp` → `…/admin/mcp`), as the demo derives it. */
export function adminResourceOf(resource: string): string {
  return resource.replace(/\/mcp$/, '/admin/mcp');
}

/** Starts the demo's authorization server on 127.0.0.1. */
export async function startDemoAuthorizationServer(
  options: DemoAuthorizationServerOptions,
): Promise<DemoAuthorizationServer> {
  const clientSecret = options.clientSecret ?? randomBytes(18).toString('base64url');
  const server = await startAuthorizationServer({
    port: options.port,
    // The console's two servers: `/mcp` and its admin server `/admin/mcp` (apps/demo/src/app.module.ts).
    resource: (resource: string) => resource === options.resource || resource === adminResourceOf(options.resource),
    scopes: [...OPS_SCOPES],
    confidentialClients: [
      { clientId: OPS_SCRIPTS_CLIENT_ID, clientSecret },
      { clientId: OPS_VIEWER_CLIENT_ID, clientSecret, scopes: ['ops:read'] },
    ],
    // The console's own URL too: the playground page signs in with this client and is its own redirect URI.
    publicClients: [{ clientId: OPS_APP_CLIENT_ID, redirectUris: [...OPS_APP_REDIRECT_URIS, options.resource] }],
    accessTokenTtlSec: 3600,
  });
  const { resource } = options;
  return {
    server,
    issuer: server.issuer,
    resource,
    clientSecret,
    instructions: () => [
      `Authorization server (oidc-provider, local, in memory): ${server.issuer}`,
      `  resource ${resource}, scopes ${OPS_SCOPES.join(' ')} (admin > write > read)`,
      `  clients: ${OPS_SCRIPTS_CLIENT_ID} (client credentials, every scope), ${OPS_VIEWER_CLIENT_ID} (client credentials, ops:read),`,
      `           ${OPS_APP_CLIENT_ID} (public: authorization code + PKCE, redirect ${[...OPS_APP_REDIRECT_URIS, resource].join(', ')}; any user name and password)`,
      `  client secret: ${clientSecret}`,
      'Get a token (client credentials):',
      `  TOKEN=$(curl -s -u ${OPS_SCRIPTS_CLIENT_ID}:${clientSecret} ${server.endpoints.token} -d grant_type=client_credentials ` +
        `-d resource=${resource} -d 'scope=ops:read ops:write' | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
      'Call a tool with it:',
      `  curl -s ${resource} -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' ` +
        `-H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list' ` +
        `-d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`,
      `MCP Inspector: npx @modelcontextprotocol/inspector, Streamable HTTP ${resource}, OAuth client id ${OPS_APP_CLIENT_ID}`,
      '  (it finds the authorization server from the 401 and the protected resource metadata).',
      `Playground: open ${resource} in a browser and sign in with the client id ${OPS_APP_CLIENT_ID}.`,
    ],
    close: () => server.close(),
  };
}
