/** What an MCP handler parameter receives. */
export enum McpParamType {
  /** Tool arguments, prompt arguments, or the variables of a matched URI template. */
  ARGS = 0,
  /** The `McpToolContext` / `McpPromptContext` / `McpResourceContext` of the call. */
  CONTEXT = 1,
  /** The underlying HTTP request (Express or Fastify), when the call came over HTTP. */
  REQUEST = 2,
}
