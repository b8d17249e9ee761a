import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from '../../src/apps/apps.constants.js';
import { TASKS_EXTENSION } from '../../src/protocol/task.constants.js';

/** The revision the page speaks (spec 2026-07-28). */
export const PROTOCOL_VERSION = '2026-07-28';

/** Reserved `_meta` keys (spec 2026-07-28: basic/index, "`_meta`"): the server's own list, bundled into the page. */
export { MetaKeys as META } from '../../src/protocol/meta-keys.constants.js';

/** The media type of an MCP App view: the server's own name for it. */
export { MCP_APP_MIME_TYPE as APP_MIME_TYPE } from '../../src/apps/apps.constants.js';

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
    [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] },
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
