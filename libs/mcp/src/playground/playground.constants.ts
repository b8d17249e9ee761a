/**
 * The query of the endpoint URL that asks for the MCP Apps sandbox proxy instead of the page (`/mcp?mcp-app-sandbox`):
 * the frame in which the playground renders a tool's view (docs/playground.md, "MCP App views").
 */
export const PLAYGROUND_SANDBOX_QUERY = 'mcp-app-sandbox';

/** The id of the page's configuration block (`<script type="application/json">`), read by the page's script. */
export const PLAYGROUND_CONFIG_ELEMENT_ID = 'mcp-playground-config';
