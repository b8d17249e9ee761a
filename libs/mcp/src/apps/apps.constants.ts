/**
 * The id of the MCP Apps extension (ext-apps spec 2026-01-26): the key a client declares in
 * `capabilities.extensions` (per request on 2026-07-28, per session on 2025-11-25) and a server advertises.
 */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an MCP Apps view: its `resources/read` content must carry exactly this one. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The URI scheme of MCP Apps views (reserved by the extension for them). */
export const MCP_APP_URI_SCHEME = 'ui:';

/**
 * The deprecated flat `_meta` key of a tool's view (`_meta["ui/resourceUri"]`), still written beside
 * `_meta.ui.resourceUri` so that hosts built before the nested form find the view.
 */
export const MCP_APP_RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** Default `ttlMs` of a view's `resources/read`: one hour (a view is a template; per-call data is in tool results). */
export const DEFAULT_APP_VIEW_TTL_MS = 3_600_000;
