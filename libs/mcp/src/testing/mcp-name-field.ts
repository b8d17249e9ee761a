/**
 * @internal The `params` field a method's `Mcp-Name` mirrors (`McpRoute.nameParam`), or undefined when it mirrors none: read
 * from the route table of the application's 2026-07-28 wire, so an extension's routes reach the kit through the
 * extension contract only (ADR 0030).
 */
export type McpNameFieldOf = (method: string) => string | undefined;

/**
 * @internal The fields for a server the kit cannot look into (`connect(url)`): what a client knows from the specifications,
 * for the methods the kit itself sends (spec 2026-07-28: basic/transports/streamable-http, "Standard Request
 * Headers"; ext-tasks: "Streamable HTTP: Routing Headers"). With an application, its wire's routes are used instead.
 */
const SPECIFIED_NAME_FIELDS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** @internal The fields of `SPECIFIED_NAME_FIELDS`, for a bare URL. */
export const specifiedNameField: McpNameFieldOf = (method) => SPECIFIED_NAME_FIELDS[method];
