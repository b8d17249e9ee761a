import { isJsonObject } from '../protocol/json-object.util.js';
import type { McpClientCapabilities } from '../protocol/mcp-wire.interface.js';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from './apps.constants.js';

/**
 * Whether a client declared the MCP Apps extension in `capabilities` (a request's on 2026-07-28, its session's on
 * 2025-11-25): `extensions["io.modelcontextprotocol/ui"].mimeTypes` must include `text/html;profile=mcp-app` — the
 * spec requires `mimeTypes`, and a client that lists none cannot render a view.
 *
 * @example declaresApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } }) // true
 */
export function declaresApps(capabilities: McpClientCapabilities | undefined): boolean {
  const settings = capabilities?.extensions?.[MCP_APPS_EXTENSION];
  return isJsonObject(settings) && Array.isArray(settings.mimeTypes) && settings.mimeTypes.includes(MCP_APP_MIME_TYPE);
}

/**
 * What a 2025-11-25 session keeps of a client's MCP Apps declaration: a fresh, bounded `extensions` object that
 * `declaresApps` accepts, or `undefined` when the client did not declare the extension (never the client's objects:
 * a session keeps its capabilities for its whole life).
 */
export function keptAppsExtension(declared: Record<string, unknown>): McpClientCapabilities['extensions'] | undefined {
  if (!declaresApps(declared as McpClientCapabilities)) return undefined;
  return { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } };
}

/**
 * The client capabilities of an MCP Apps host, for clients and tests: `capabilities` (default none) with the
 * extension declared.
 *
 * @example `new Client(info, { capabilities: withAppsExtension() })`
 */
export function withAppsExtension<T extends McpClientCapabilities>(capabilities?: T): T & McpClientCapabilities {
  const base = (capabilities ?? {}) as T;
  return { ...base, extensions: { ...base.extensions, [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } };
}
