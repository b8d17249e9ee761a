import { until } from './wait.util.js';
import { loadOfficialSchema } from './official-schema.js';

/**
 * Validates what the server sends on the 2025-11-25 ("legacy") wire against the official, vendored 2025-11-25 JSON
 * Schema (`test/schemas/schema-2025-11-25.json`), plus the rules that the schema cannot express (its `Result` is open;
 * what 2026-07-28 added is in spec 2026-07-28: changelog): no `resultType`, `ttlMs` or `cacheScope` on results, no
 * 2026-only error codes (`-32020..-32022`), no subscription tags on notifications, and server→client requests limited
 * to the four methods the revision defines.
 *
 * Same approach as `wire-schema.validator.ts`: one Ajv instance, the schema added under an `$id`, one compiled
 * validator per `$defs` entry on first use. Also here: a recording `fetch` for the official client that reads every
 * response incrementally, so frames of a long-lived GET stream are recorded even when the client aborts it.
 */

const schema = loadOfficialSchema('2025-11-25');

/** Throws with Ajv's explanation unless `value` matches `$defs[def]` of the 2025-11-25 schema. */
export function assertMatchesLegacyDef(def: string, value: unknown, what = def): void {
  schema.assertMatches(def, value, what);
}

function fail(reason: string, value: unknown): never {
  throw new Error(`${reason}\nmessage: ${JSON.stringify(value)}`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** method → the `$defs` name of its result on this wire. */
const RESULT_DEFS: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
  'tasks/get': 'GetTaskResult',
  'tasks/cancel': 'CancelTaskResult',
  'tasks/list': 'ListTasksResult',
  // Only tools/call is task-augmented here: tasks/result answers what the call would have.
  'tasks/result': 'CallToolResult',
};

/** Results that are empty on this wire (an empty object, `_meta` at most). */
const EMPTY_RESULT_METHODS = new Set(['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** server notification method → its `$defs` name. */
const NOTIFICATION_DEFS: Readonly<Record<string, string>> = {
  'notifications/cancelled': 'CancelledNotification',
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/elicitation/complete': 'ElicitationCompleteNotification',
  'notifications/tasks/status': 'TaskStatusNotification',
};

/** server→client request method → its `$defs` name (the server hosts tasks; it never asks the client to host one). */
const REQUEST_DEFS: Readonly<Record<string, string>> = {
  ping: 'PingRequest',
  'elicitation/create': 'ElicitRequest',
  'sampling/createMessage': 'CreateMessageRequest',
  'roots/list': 'ListRootsRequest',
};

/** Fields that only exist on the 2026-07-28 wire (spec 2026-07-28: changelog). */
const MODERN_RESULT_FIELDS = ['resultType', 'ttlMs', 'cacheScope'];
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Validates the `result` of a response to `method` on the legacy wire. */
export function assertValidLegacyResult(method: string, result: unknown): void {
  assertMatchesLegacyDef('Result', result, `result of ${method}`);
  for (const field of MODERN_RESULT_FIELDS) {
    if (field in (result as Record<string, unknown>))
      fail(`a 2025-11-25 result must not carry "${field}" (new in 2026-07-28, see its changelog)`, result);
  }
  // A task-augmented tools/call answers a CreateTaskResult instead (spec 2025-11-25: basic/utilities/tasks).
  const isTaskCreation = method === 'tools/call' && typeof result === 'object' && result !== null && 'task' in result;
  const def = isTaskCreation ? 'CreateTaskResult' : RESULT_DEFS[method];
  if (def) assertMatchesLegacyDef(def, result, `result of ${method}`);
  if (method === 'tasks/result') {
    const related = (result as { _meta?: Record<string, unknown> })._meta?.['io.modelcontextprotocol/related-task'];
    assertMatchesLegacyDef('RelatedTaskMetadata', related, 'tasks/result _meta related-task (a MUST)');
  }
  if (EMPTY_RESULT_METHODS.has(method) && Object.keys(result as object).some((key) => key !== '_meta')) {
    fail(`${method} answers with an empty result`, result);
  }
  if (method === 'tools/list') {
    // The schema allows `outputSchema` only with an object root; checked here too for a readable message (what
    // changed: spec 2026-07-28: changelog, "Minor changes").
    for (const tool of (result as { tools: Array<Record<string, unknown>> }).tools) {
      const schema = tool.outputSchema as Record<string, unknown> | undefined;
      if (schema !== undefined && schema.type !== 'object')
        fail(`tool "${String(tool.name)}": outputSchema root must be an object`, tool);
    }
  }
}

/**
 * Validates one message the server sent on the legacy wire: a server→client request (`ServerRequest`), a
 * notification (`ServerNotification`, untagged), an error (`JSONRPCErrorResponse`, no 2026-only codes) or a result
 * (`JSONRPCResultResponse` and, when `requestMethod` is given, its specific result type).
 */
export function assertValidLegacyServerMessage(message: unknown, requestMethod?: string): void {
  if (!isObject(message)) fail('a server message must be a JSON object', message);
  if ('method' in message) {
    if ('id' in message) {
      assertMatchesLegacyDef('JSONRPCRequest', message, 'server→client request');
      const def = REQUEST_DEFS[message.method as string];
      if (!def) fail(`the server may not send a ${JSON.stringify(message.method)} request on this wire`, message);
      assertMatchesLegacyDef(def, message, `${String(message.method)} request`);
      assertMatchesLegacyDef('ServerRequest', message, 'server→client request');
      return;
    }
    assertMatchesLegacyDef('JSONRPCNotification', message, 'notification');
    const def = NOTIFICATION_DEFS[message.method as string];
    if (!def) fail(`unknown server notification ${JSON.stringify(message.method)}`, message);
    assertMatchesLegacyDef(def, message, `${String(message.method)} notification`);
    const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    // spec 2025-11-25: server/resources, "Subscriptions" (the tag is 2026-only)
    if (meta && SUBSCRIPTION_ID in meta) fail('legacy notifications are untagged (no subscriptionId)', message);
    return;
  }
  if ('error' in message) {
    assertMatchesLegacyDef('JSONRPCErrorResponse', message, 'error response');
    const code = (message.error as { code: number }).code;
    // -32020..-32022 are 2026-07-28 codes (spec 2026-07-28: basic/index, "Error Codes").
    if (code <= -32020 && code >= -32022) fail(`error code ${code} does not exist on the 2025-11-25 wire`, message);
    if (code === -32042) assertMatchesLegacyDef('URLElicitationRequiredError', message, 'error -32042');
    return;
  }
  assertMatchesLegacyDef('JSONRPCResultResponse', message, 'result response');
  if (requestMethod !== undefined) assertValidLegacyResult(requestMethod, message.result);
}

/** One message the server sent, with the exchange it came on. */
export interface LegacyRecord {
  /** HTTP verb of the exchange (`POST`, `GET`, `DELETE`). */
  verb: string;
  /** `method` of the JSON-RPC message in the request body, when the body was a request or notification. */
  requestMethod?: string;
  requestId?: string | number;
  /** Whether the POST body was a JSON-RPC response (the client answering a server→client request). */
  bodyWasResponse: boolean;
  status: number;
  contentType: string | null;
  message: unknown;
  invalidBody?: string;
}

/** One HTTP exchange, recorded when its response headers arrived. */
export interface LegacyExchangeRecord {
  verb: string;
  requestMethod?: string;
  requestId?: string | number;
  bodyWasResponse: boolean;
  /** The request headers the client sent. */
  requestHeaders: Headers;
  /** The JSON body the client sent, parsed (undefined for GET/DELETE). */
  sentBody?: unknown;
  status: number;
  headers: Headers;
}

/** A recording `fetch` for the official client (2025-11-25 wire). */
export interface LegacyRecorder {
  fetch: typeof fetch;
  /** Every server message so far, in arrival order. */
  readonly recorded: readonly LegacyRecord[];
  /** Every exchange so far, in the order their response headers arrived. */
  readonly exchanges: readonly LegacyExchangeRecord[];
  /** Waits until every non-GET response body seen so far has been read (GET streams stay open until closed). */
  settled(): Promise<readonly LegacyRecord[]>;
  /** Waits until a GET exchange answered with `status` (default 200). */
  waitForGet(status?: number, timeoutMs?: number): Promise<LegacyExchangeRecord>;
  /** Waits until a recorded server message matches. */
  waitFor(predicate: (record: LegacyRecord) => boolean, what: string, timeoutMs?: number): Promise<LegacyRecord>;
}

/** The `data:` payloads of complete SSE events at the start of `buffer`, and what is left over. */
function splitEvents(buffer: string): { payloads: string[]; rest: string } {
  const payloads: string[] = [];
  let rest = buffer;
  for (;;) {
    const match = /\r\n\r\n|\n\n|\r\r/.exec(rest);
    if (!match) break;
    const event = rest.slice(0, match.index);
    rest = rest.slice(match.index + match[0].length);
    const data = event
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length > 0) payloads.push(data.join('\n'));
  }
  return { payloads, rest };
}

function bodyInfo(init: RequestInit | undefined): {
  method?: string;
  id?: string | number;
  isResponse: boolean;
  parsed?: unknown;
} {
  if (typeof init?.body !== 'string') return { isResponse: false };
  try {
    const parsed = JSON.parse(init.body) as Record<string, unknown>;
    return {
      method: typeof parsed.method === 'string' ? parsed.method : undefined,
      id: typeof parsed.id === 'string' || typeof parsed.id === 'number' ? parsed.id : undefined,
      isResponse: !('method' in parsed) && ('result' in parsed || 'error' in parsed),
      parsed,
    };
  } catch {
    return { isResponse: false };
  }
}

/**
 * A `fetch` wrapper (for `StreamableHTTPClientTransport`'s `fetch` option) that reads a clone of every response as
 * it streams and records each server message with the exchange it came on.
 */
export function legacyRecordingFetch(base: typeof fetch = globalThis.fetch): LegacyRecorder {
  const recorded: LegacyRecord[] = [];
  const exchanges: LegacyExchangeRecord[] = [];
  const pending = new Set<Promise<void>>();

  const read = async (response: Response, common: Omit<LegacyRecord, 'message' | 'invalidBody'>) => {
    if (!response.body) return;
    const isSse = common.contentType?.split(';', 1)[0].trim().toLowerCase() === 'text/event-stream';
    const push = (payload: string) => {
      try {
        recorded.push({ ...common, message: JSON.parse(payload) });
      } catch {
        recorded.push({ ...common, message: undefined, invalidBody: payload });
      }
    };
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        if (isSse) {
          const split = splitEvents(buffer);
          buffer = split.rest;
          split.payloads.forEach(push);
        }
      }
    } catch {
      // Aborted by the client (closing a GET stream) or reset: what was read is kept.
    }
    if (!isSse && buffer.length > 0) push(buffer);
  };

  const wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await base(input, init);
    const verb = (init?.method ?? 'GET').toUpperCase();
    const info = bodyInfo(init);
    const requestHeaders = new Headers(init?.headers);
    exchanges.push({
      verb,
      requestMethod: info.method,
      requestId: info.id,
      bodyWasResponse: info.isResponse,
      requestHeaders,
      sentBody: info.parsed,
      status: response.status,
      headers: response.headers,
    });
    const common = {
      verb,
      requestMethod: info.method,
      requestId: info.id,
      bodyWasResponse: info.isResponse,
      status: response.status,
      contentType: response.headers.get('content-type'),
    };
    const reading = read(response.clone(), common).catch(() => undefined);
    if (verb !== 'GET') {
      pending.add(reading);
      void reading.finally(() => pending.delete(reading));
    }
    return response;
  }) as typeof fetch;

  return {
    fetch: wrapped,
    recorded,
    exchanges,
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
      return recorded;
    },
    async waitForGet(status = 200, timeoutMs = 3_000) {
      await until(
        () => exchanges.some((exchange) => exchange.verb === 'GET' && exchange.status === status),
        timeoutMs,
        `a GET answered ${status}`,
      );
      return exchanges.find((exchange) => exchange.verb === 'GET' && exchange.status === status)!;
    },
    async waitFor(predicate, what, timeoutMs = 3_000) {
      await until(() => recorded.some(predicate), timeoutMs, what);
      return recorded.find(predicate)!;
    },
  };
}

/**
 * Validates every recorded server message (see `assertValidLegacyServerMessage`), and that each response on a
 * POST echoes the id of the request it answered. Returns how many messages were checked.
 */
export async function assertAllLegacyValid(recorder: LegacyRecorder | readonly LegacyRecord[]): Promise<number> {
  const messages = 'settled' in recorder ? await recorder.settled() : recorder;
  const problems: string[] = [];
  for (const entry of messages) {
    try {
      if (entry.invalidBody !== undefined)
        fail(`the server sent a body that is not JSON (status ${entry.status})`, entry.invalidBody);
      const message = entry.message as Record<string, unknown>;
      const isResponse = isObject(message) && !('method' in message) && ('result' in message || 'error' in message);
      // spec 2025-11-25: basic/transports, "Listening for Messages from the Server"
      if (isResponse && entry.verb === 'GET') fail('the GET stream must not carry responses', message);
      assertValidLegacyServerMessage(message, isResponse ? entry.requestMethod : undefined);
      if (isResponse && entry.requestId !== undefined && !entry.bodyWasResponse && message.id !== entry.requestId) {
        fail(
          `response id ${JSON.stringify(message.id)} does not echo the request id ${JSON.stringify(entry.requestId)}`,
          message,
        );
      }
    } catch (error) {
      problems.push(`[${entry.verb} ${entry.requestMethod ?? '?'} → ${entry.status}] ${(error as Error).message}`);
    }
  }
  if (problems.length > 0)
    throw new Error(`${problems.length} invalid legacy server message(s):\n${problems.join('\n\n')}`);
  return messages.length;
}
