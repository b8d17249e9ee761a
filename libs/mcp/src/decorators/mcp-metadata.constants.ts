/** Metadata keys written by the decorators and read back only by `McpMetadataAccessor`. */
export const MCP_TOOL_METADATA = 'nest-mcp:tool';
export const MCP_PROMPT_METADATA = 'nest-mcp:prompt';
export const MCP_RESOURCE_METADATA = 'nest-mcp:resource';
export const MCP_RESOURCE_TEMPLATE_METADATA = 'nest-mcp:resource-template';
/** Parameter metadata (same layout as Nest's route params) for `ExternalContextCreator`. */
export const MCP_PARAM_ARGS_METADATA = 'nest-mcp:param-args';
/** Scopes required by `@McpScopes`, on a class or a method. */
export const MCP_SCOPES_METADATA = 'nest-mcp:scopes';
/** An MCP Apps view (`@McpAppView`): its `ui://` URI and options. */
export const MCP_APP_VIEW_METADATA = 'nest-mcp:app-view';
/**
 * On the class of the MCP endpoint's own HTTP controller: lets an enhancer that runs on every HTTP route tell the
 * endpoint apart (`mcpThrottlerOptions.skipIf` does not count its requests: their calls are counted one by one).
 */
export const MCP_ENDPOINT_METADATA = 'nest-mcp:endpoint';
