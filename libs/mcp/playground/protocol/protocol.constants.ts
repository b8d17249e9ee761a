/** The revision the page speaks (spec 2026-07-28). */
export const PROTOCOL_VERSION = '2026-07-28';

/** Reserved `_meta` keys (spec 2026-07-28: basic/index, "`_meta`"). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** Who the page is, in every request's `_meta`. */
export const CLIENT_INFO = { name: 'nest-mcp-playground', version: '1.0.0', title: 'MCP playground' } as const;

/**
 * What the page can do, declared on every request: form and URL elicitation (answered in the page), tasks, and MCP
 * App views.
 */
export const CLIENT_CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  extensions: {
    [TASKS_EXTENSION]: {},
    [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] },
  },
} as const;

/** Methods whose `Mcp-Name` header mirrors a params field (spec 2026-07-28: basic/transports/streamable-http). */
export const NAME_FIELD: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
