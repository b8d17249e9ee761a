import { SetMetadata } from '@nestjs/common';
import { MCP_SCOPES_METADATA } from './mcp-metadata.constants.js';

/**
 * The OAuth scopes a caller's access token must grant to use a tool, prompt, resource, resource template or event type. On a
 * class, every handler of the class requires them; on a method too, the two sets combine (all are required).
 *
 * Checked before guards run, when a call carries an access token (HTTP with the `auth` option, or the testing kit's
 * `caller`): a broader scope satisfies a narrower one as `auth.scopeHierarchy` says, and a token that lacks one gets
 * HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="<every scope the handler needs>"`, so the
 * client can ask for a broader token (step-up) and retry. Lists show a caller only the handlers its scopes allow.
 * Local callers (stdio, the in-process testing kit without `caller`) are not checked; an HTTP call without a token (a
 * server without `auth`) never satisfies it. Scopes are RFC 6749 scope tokens (no spaces, quotes or backslashes).
 *
 * @example
 * ```ts
 * @McpScopes('deploy:read')
 * class DeployTools {
 *   @McpScopes('deploy:write') // needs deploy:read and deploy:write
 *   @McpTool({ description: 'Deploys a release' })
 *   deploy(@McpArgs() args: DeployDto) { … }
 * }
 * ```
 */
export const McpScopes = (...scopes: string[]): ClassDecorator & MethodDecorator => {
  if (scopes.length === 0) throw new TypeError('@McpScopes() needs at least one scope');
  return SetMetadata(MCP_SCOPES_METADATA, Object.freeze([...scopes]));
};
