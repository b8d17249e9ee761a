import type { RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';

const PROTOCOL = '2026-07-28';

/** The request field each method's `Mcp-Name` header mirrors (the routes' `nameParam`). */
const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * The `rawDispatch` the official ext-tasks client needs on the 2026-07-28 wire (its `tasks/*` requests): one POST
 * per request to `url`, with the standard MCP headers (`Mcp-Name` from the mirrored field), the caller's own headers
 * (`x-user`, `authorization`…) and ext-tasks' per-request headers merged case-insensitively over them.
 */
export function extTasksRawDispatch(url: URL, callerHeaders: Readonly<Record<string, string>>): RawClientDispatch {
  let seq = 0;
  return async (request, options) => {
    const { method, params = {} } = request as { method: string; params?: Record<string, unknown> };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      'mcp-method': method,
      ...callerHeaders,
      ...(NAME_FIELD[method] ? { 'mcp-name': String(params[NAME_FIELD[method]]) } : {}),
    };
    for (const [key, value] of Object.entries(options?.context?.headers ?? {}))
      headers[key.toLowerCase()] = String(value);
    const response = await fetch(url, {
      method: 'POST',
      headers,
      signal: options?.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: `raw-${++seq}`, ...(request as object) }),
    });
    const message = (await response.json()) as { result?: never; error?: never };
    return message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result! };
  };
}
