import type { McpAuthOptions } from '../config/mcp-options.interface.js';
import { OFFLINE_ACCESS_SCOPE, PROTECTED_RESOURCE_METADATA_PATH } from './auth.constants.js';

/**
 * Protected Resource Metadata (RFC 9728 §2), as this server publishes it. A type rather than an interface so that it
 * is a plain JSON record (`Record<string, unknown>`) where the transport serializes it.
 */
export type McpProtectedResourceMetadata = {
  /** The canonical URI of this MCP server (`auth.resource`). */
  readonly resource: string;
  /** Issuer identifiers of the authorization servers clients may use (at least one). */
  readonly authorization_servers: readonly string[];
  /** Scopes for basic use (`auth.scopesSupported`), never `offline_access`. Absent when not configured. */
  readonly scopes_supported?: readonly string[];
  /** How tokens are sent: only the `Authorization` header (MCP never takes them in the query or the body). */
  readonly bearer_methods_supported: readonly ['header'];
  readonly resource_name?: string;
  readonly resource_documentation?: string;
};

/** Where this resource's metadata is served, as paths of this server and as absolute URLs. */
export interface McpProtectedResourceMetadataLocation {
  /** `/.well-known/oauth-protected-resource` + the resource's path (RFC 9728 §3.1), e.g. `…/oauth-protected-resource/mcp`. */
  readonly path: string;
  /** `path` on the resource's origin: the URL named in `WWW-Authenticate` (`resource_metadata`). */
  readonly url: string;
  /** `/.well-known/oauth-protected-resource`, the root form clients try second. */
  readonly rootPath: string;
  /** `rootPath` on the resource's origin. */
  readonly rootUrl: string;
}

/**
 * Builds the metadata document from the `auth` options (already validated): `resource`, `authorization_servers`,
 * `scopes_supported` (without `offline_access`, MCP 2026-07-28 T-AUTH-10), `bearer_methods_supported: ['header']`,
 * `resource_name` and `resource_documentation` when set. The same document is served at both locations of
 * `protectedResourceMetadataLocation`.
 */
export function buildProtectedResourceMetadata(
  options: Pick<
    McpAuthOptions,
    'resource' | 'authorizationServers' | 'scopesSupported' | 'resourceName' | 'resourceDocumentation'
  >,
): McpProtectedResourceMetadata {
  const scopes =
    options.scopesSupported && [...new Set(options.scopesSupported)].filter((scope) => scope !== OFFLINE_ACCESS_SCOPE);
  return {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    ...(scopes ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ['header'],
    ...(options.resourceName !== undefined ? { resource_name: options.resourceName } : {}),
    ...(options.resourceDocumentation !== undefined ? { resource_documentation: options.resourceDocumentation } : {}),
  };
}

/**
 * The well-known locations of the metadata of `resource` (RFC 9728 §3.1: the well-known path goes between the host and
 * the resource's path; a resource at the root of its host has one location only, then `path === rootPath`).
 *
 * @example protectedResourceMetadataLocation('https://mcp.example.com/mcp').url
 *   // 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
 */
export function protectedResourceMetadataLocation(resource: string): McpProtectedResourceMetadataLocation {
  const url = new URL(resource);
  const suffix = url.pathname === '/' ? '' : url.pathname;
  const path = `${PROTECTED_RESOURCE_METADATA_PATH}${suffix}`;
  return {
    path,
    url: `${url.origin}${path}`,
    rootPath: PROTECTED_RESOURCE_METADATA_PATH,
    rootUrl: `${url.origin}${PROTECTED_RESOURCE_METADATA_PATH}`,
  };
}

/** The URL named in `WWW-Authenticate: Bearer resource_metadata="…"`: the path-suffixed location. */
export function protectedResourceMetadataUrl(resource: string): string {
  return protectedResourceMetadataLocation(resource).url;
}
