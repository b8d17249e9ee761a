import type { McpAuthOptions } from 'nest-mcp';
import { OPS_READ, OPS_SCOPE_HIERARCHY, OPS_WRITE } from './ops-scopes.constants.js';

/** What the console reads from its environment to turn authorization on. */
export interface OpsAuthEnv {
  /**
   * The authorization server's issuer URL (comma-separated for several). Setting it turns authorization on.
   * `npm start -- --auth` starts a local one and sets it.
   */
  readonly AUTH_ISSUER?: string;
  /** The console's canonical URI, the audience of its tokens. Default `http://<HOST>:<PORT>/mcp`. */
  readonly AUTH_RESOURCE?: string;
  readonly HOST?: string;
  readonly PORT?: string;
}

/** Hosts a server listens on without being reachable there: the resource URI names loopback instead. */
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

// #region docs:demo-auth
/**
 * The console's `auth` option, or undefined when authorization is off (no `AUTH_ISSUER`). Tokens are JWTs from the
 * issuer, for this console's URI, with `ops:read` / `ops:write` / `ops:admin` scopes (admin ⊃ write ⊃ read).
 */
export function opsAuthOptions(env: OpsAuthEnv, argv: readonly string[] = []): McpAuthOptions | undefined {
  const issuers = (env.AUTH_ISSUER ?? '')
    .split(',')
    .map((issuer) => issuer.trim())
    .filter((issuer) => issuer !== '');
  if (issuers.length === 0) {
    if (argv.includes('--auth')) {
      throw new Error(
        '--auth needs AUTH_ISSUER (the authorization server); `npm start -- --auth` starts a local one and sets it',
      );
    }
    return undefined;
  }
  return {
    resource: env.AUTH_RESOURCE || defaultResource(env),
    authorizationServers: issuers,
    // Basic use is reading and operating; admin tools ask for ops:admin when called (step-up).
    scopesSupported: [OPS_READ, OPS_WRITE],
    scopeHierarchy: OPS_SCOPE_HIERARCHY,
    resourceName: 'Operations console',
  };
}
// #endregion docs:demo-auth

/** `http://<HOST>:<PORT>/mcp`, on loopback when the console listens on every interface. */
function defaultResource(env: OpsAuthEnv): string {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error(
      "With AUTH_ISSUER, set a fixed PORT or AUTH_RESOURCE: tokens name the console's URI, port included",
    );
  }
  const host = WILDCARD_HOSTS.has(env.HOST ?? '127.0.0.1') ? '127.0.0.1' : (env.HOST ?? '127.0.0.1');
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}/mcp`;
}

/**
 * The `auth` option of this process, read once when the console's modules load: `@OpsScopes` needs to know before
 * the classes are decorated.
 */
export const OPS_AUTH: McpAuthOptions | undefined = opsAuthOptions(process.env, process.argv.slice(2));

/**
 * The admin server's `auth` (`/admin/mcp`): the console's, for its own resource URI — the console's with `/mcp`
 * replaced by `/admin/mcp` (`AUTH_ADMIN_RESOURCE` overrides it) — since a token names the one endpoint it is for.
 */
export const OPS_ADMIN_AUTH: McpAuthOptions | undefined = OPS_AUTH && {
  ...OPS_AUTH,
  resource: process.env.AUTH_ADMIN_RESOURCE || OPS_AUTH.resource.replace(/\/mcp$/, '/admin/mcp'),
  resourceName: 'Operations console (admin)',
};
