/** What an MCP handler parameter receives. */
export enum McpParamType {
  /** Tool arguments, prompt arguments, or the variables of a matched URI template. */
  ARGS = 0,
  /** The `McpToolContext` / `McpPromptContext` / `McpResourceContext` of the call. */
  CONTEXT = 1,
  /** The underlying HTTP request (Express or Fastify), when the call came over HTTP. */
  REQUEST = 2,
  /** The authenticated caller (`ctx.principal`), or `undefined` when anonymous. */
  PRINCIPAL = 3,
  /** The verified access token's content (`ctx.accessToken`), or `undefined` when the call carried none. */
  ACCESS_TOKEN = 4,
}
