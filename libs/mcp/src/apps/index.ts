/*
 * MCP Apps (`io.modelcontextprotocol/ui`): what a tool's `app` option and an `@McpAppView` mean on the wire.
 */
export {
  MCP_APPS_EXTENSION,
  MCP_APP_MIME_TYPE,
  MCP_APP_RESOURCE_URI_META_KEY,
  DEFAULT_APP_VIEW_TTL_MS,
} from './apps.constants.js';
export { declaresApps, withAppsExtension } from './apps-capability.util.js';
export { McpAppViews } from './app-view-file.provider.js';
