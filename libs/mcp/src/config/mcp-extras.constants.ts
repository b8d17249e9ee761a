/** Injection token of the static module extras (`path`), resolved with defaults. */
export const MCP_MODULE_OPTIONS_EXTRAS = Symbol('nest-mcp:module-extras');
