import { PROTOCOL_VERSION, requestMeta, type WireRequest } from './wire.js';

/** The 2026-07-28 requests of the scale-out workloads that wire.ts does not build: resource listens and tasks. */

/** Declares the tasks extension (and form elicitation), as a tasks-aware client does. */
export const TASKS_META = {
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  },
};

function headers(method: string, name?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

/** `subscriptions/listen` for updates of `uri` and everything under it. */
export function resourceListen(id: string | number, uri: string): WireRequest {
  return {
    headers: headers('subscriptions/listen'),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: [uri] }, _meta: requestMeta() },
    }),
  };
}

/** `tasks/get` of one task, from a client declaring the tasks extension. */
export function tasksGet(id: string | number, taskId: string): WireRequest {
  return {
    headers: headers('tasks/get', taskId),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tasks/get',
      params: { taskId, _meta: requestMeta(TASKS_META) },
    }),
  };
}
