import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadOfficialSchema } from './official-schema.js';

/**
 * Validates what the server puts on the wire against the official, vendored 2026-07-28 JSON Schema
 * (`test/schemas/schema-2026-07-28.json`), plus the few rules of the spec pages that a schema cannot express (spec
 * 2026-07-28: `resultType` values and reserved error codes, basic/index; MRTR-only methods, basic/patterns/mrtr;
 * `nextCursor` never `""`, server/utilities/pagination).
 *
 * The schema is compiled once per test file; validators for single `$defs` are built on first use.
 */

const schema = loadOfficialSchema('2026-07-28');

/** A separate instance for schemas the server publishes (tool input/output schemas), so they never mix with the spec's. */
const published = new Ajv2020({ strict: false, allErrors: true, addUsedSchema: false });
addFormats.default(published);

/**
 * Compiles a JSON Schema the server published (2020-12, the MCP default dialect) and returns a validator that
 * throws with Ajv's explanation. Compilation itself throws when the schema is not valid JSON Schema
 * (spec 2026-07-28: basic/index, "Schema Validation").
 */
export function compilePublishedSchema(schema: unknown, what = 'schema'): (value: unknown) => void {
  const validate = published.compile(schema as object);
  return (value) => {
    if (!validate(value)) {
      throw new Error(
        `${what} rejects ${JSON.stringify(value)}: ${published.errorsText(validate.errors, { separator: '; ' })}`,
      );
    }
  };
}

/** Throws with Ajv's explanation unless `value` matches `$defs[def]`. */
export function assertMatchesDef(def: string, value: unknown, what = def): void {
  schema.assertMatches(def, value, what);
}

function fail(reason: string, value: unknown): never {
  throw new Error(`${reason}\nmessage: ${JSON.stringify(value)}`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The methods that may answer with an `InputRequiredResult` (spec 2026-07-28: basic/patterns/mrtr,
 * "Supported Requests").
 */
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** method → the `$defs` name of its complete result. */
const RESULT_DEFS: Readonly<Record<string, string>> = {
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
};

/**
 * Cacheable results (spec 2026-07-28: server/utilities/caching, "Cacheable Results") — the schema already requires
 * `ttlMs`/`cacheScope` on them.
 */
const PAGINATED_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** notification method → its `$defs` name. */
const NOTIFICATION_DEFS: Readonly<Record<string, string>> = {
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
};

/** Error codes with an envelope of their own in the schema (`data` shape included). */
const ERROR_ENVELOPE_DEFS: Readonly<Record<number, string>> = {
  [-32020]: 'HeaderMismatchError',
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError',
};

/** Error codes whose `error` object has a def of its own. */
const ERROR_OBJECT_DEFS: Readonly<Record<number, string>> = {
  [-32700]: 'ParseError',
  [-32600]: 'InvalidRequestError',
  [-32601]: 'MethodNotFoundError',
  [-32602]: 'InvalidParamsError',
  [-32603]: 'InternalError',
};

/**
 * Validates the `result` of a response to `method` against its specific type: the complete result, or
 * `InputRequiredResult` when `resultType` says so (only for `tools/call`, `prompts/get`, `resources/read`).
 */
export function assertValidResult(method: string, result: unknown): void {
  assertMatchesDef('Result', result, `result of ${method}`);
  const resultType = (result as { resultType: string }).resultType;
  // spec 2026-07-28: basic/patterns/mrtr, "Supported Requests" and "Server Requirements (Basic Workflow)"; no cache
  // hints on interim results: server/utilities/caching, "Cacheable Results".
  if (resultType === 'input_required') {
    if (!MRTR_METHODS.has(method)) fail(`${method} must not answer with resultType "input_required"`, result);
    assertMatchesDef('InputRequiredResult', result, `result of ${method}`);
    const interim = result as Record<string, unknown>;
    if (interim.inputRequests === undefined && interim.requestState === undefined) {
      fail('an InputRequiredResult needs inputRequests and/or requestState', result);
    }
    if ('ttlMs' in interim || 'cacheScope' in interim) fail('an InputRequiredResult carries no cache hints', result);
    return;
  }
  // Only core result types without a negotiated extension (spec 2026-07-28: basic/index, "ResultType").
  if (resultType !== 'complete')
    fail(`unexpected resultType ${JSON.stringify(resultType)} (no extension negotiated)`, result);
  const def = RESULT_DEFS[method];
  if (def) assertMatchesDef(def, result, `result of ${method}`);
  // spec 2026-07-28: server/utilities/pagination, "Response Format" and "Implementation Guidelines"
  if (PAGINATED_METHODS.has(method) && (result as { nextCursor?: unknown }).nextCursor === '') {
    fail(`${method}: "" is not an end-of-list marker; omit nextCursor`, result);
  }
}

/**
 * Validates one message the server sent. Servers never send requests (spec 2026-07-28: basic/patterns/index); a
 * result response must match
 * `JSONRPCResultResponse` (and, when `requestMethod` is given, its specific result type); an error response
 * `JSONRPCErrorResponse` (and the code's own def); a notification `JSONRPCNotification` (and its own def).
 */
export function assertValidServerMessage(message: unknown, requestMethod?: string): void {
  if (!isObject(message)) fail('a server message must be a JSON object', message);
  if ('method' in message) {
    if ('id' in message) fail('the server must not send JSON-RPC requests', message);
    assertMatchesDef('JSONRPCNotification', message, 'notification');
    const def = NOTIFICATION_DEFS[message.method as string];
    if (!def) fail(`unknown server notification ${JSON.stringify(message.method)}`, message);
    assertMatchesDef(def, message, `${String(message.method)} notification`);
    return;
  }
  if ('error' in message) {
    assertMatchesDef('JSONRPCErrorResponse', message, 'error response');
    const code = (message.error as { code: number }).code;
    // spec 2026-07-28: basic/index, "Error Codes"
    if (code === -32002 || code === -32042) fail(`error code ${code} is retired under 2026-07-28`, message);
    if (code >= -32099 && code <= -32020 && !(code in ERROR_ENVELOPE_DEFS)) {
      fail(`error code ${code} is reserved for the spec`, message);
    }
    if (code >= -32019 && code <= -32000)
      fail(`error code ${code} is a legacy range new servers should not use`, message);
    if (ERROR_ENVELOPE_DEFS[code]) assertMatchesDef(ERROR_ENVELOPE_DEFS[code], message, `error ${code}`);
    if (ERROR_OBJECT_DEFS[code]) assertMatchesDef(ERROR_OBJECT_DEFS[code], message.error, `error ${code}`);
    return;
  }
  assertMatchesDef('JSONRPCResultResponse', message, 'result response');
  if (requestMethod !== undefined) assertValidResult(requestMethod, message.result);
}

/** One message the server sent, with the request it answered. */
export interface RecordedServerMessage {
  /** `method` of the JSON-RPC message in the request body (undefined for a body-less request). */
  requestMethod?: string;
  /** `id` of that request, when it was a request. */
  requestId?: string | number;
  status: number;
  contentType: string | null;
  /** The decoded message; undefined when `invalidBody` is set. */
  message: unknown;
  /** The raw body (or SSE data) when it could not be decoded as JSON. */
  invalidBody?: string;
}

/** A `fetch` that records every server message; hand `fetch` to the official client's transport. */
export interface RecordingFetch {
  fetch: typeof fetch;
  /** Everything recorded so far (SSE streams may still be being read: use `settled()`). */
  readonly recorded: readonly RecordedServerMessage[];
  /** Waits until every response body seen so far has been read, then returns all records. */
  settled(): Promise<readonly RecordedServerMessage[]>;
}

/** The `data:` payloads of an SSE body, one per event (comment lines and other fields ignored). */
export function sseDataFrames(body: string): string[] {
  const frames: string[] = [];
  for (const event of body.split(/\r\n\r\n|\n\n|\r\r/)) {
    const data = event
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length > 0) frames.push(data.join('\n'));
  }
  return frames;
}

function requestInfo(init: RequestInit | undefined): { method?: string; id?: string | number } {
  if (typeof init?.body !== 'string') return {};
  try {
    const parsed = JSON.parse(init.body) as { method?: unknown; id?: unknown };
    return {
      method: typeof parsed.method === 'string' ? parsed.method : undefined,
      id: typeof parsed.id === 'string' || typeof parsed.id === 'number' ? parsed.id : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * A `fetch` wrapper (for `StreamableHTTPClientTransport`'s `fetch` option) that clones every response and records
 * each server message — a JSON body, or every SSE `data:` frame — with the method and id of the request it answered.
 */
export function recordingFetch(base: typeof fetch = globalThis.fetch): RecordingFetch {
  const recorded: RecordedServerMessage[] = [];
  const pending = new Set<Promise<void>>();

  const record = async (response: Response, request: { method?: string; id?: string | number }) => {
    const contentType = response.headers.get('content-type');
    const text = await response.text();
    if (text.length === 0) return;
    const common = { requestMethod: request.method, requestId: request.id, status: response.status, contentType };
    const essence = contentType?.split(';', 1)[0].trim().toLowerCase();
    const payloads = essence === 'text/event-stream' ? sseDataFrames(text) : [text];
    for (const payload of payloads) {
      try {
        recorded.push({ ...common, message: JSON.parse(payload) });
      } catch {
        recorded.push({ ...common, message: undefined, invalidBody: payload });
      }
    }
  };

  const wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await base(input, init);
    const reading = record(response.clone(), requestInfo(init)).catch(() => undefined);
    pending.add(reading);
    void reading.finally(() => pending.delete(reading));
    return response;
  }) as typeof fetch;

  return {
    fetch: wrapped,
    recorded,
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
      return recorded;
    },
  };
}

/**
 * Validates every recorded server message (see `assertValidServerMessage`), and that each response echoes the id
 * of the request it answered. Returns how many messages were checked.
 */
export async function assertAllValid(recorded: RecordingFetch | readonly RecordedServerMessage[]): Promise<number> {
  const messages = 'settled' in recorded ? await recorded.settled() : recorded;
  const problems: string[] = [];
  for (const entry of messages) {
    try {
      if (entry.invalidBody !== undefined)
        fail(`the server sent a body that is not JSON (status ${entry.status})`, entry.invalidBody);
      assertValidServerMessage(entry.message, entry.requestMethod);
      const message = entry.message as Record<string, unknown>;
      const isResponse = 'result' in message || 'error' in message;
      if (isResponse && entry.requestId !== undefined && message.id !== entry.requestId) {
        fail(
          `response id ${JSON.stringify(message.id)} does not echo the request id ${JSON.stringify(entry.requestId)}`,
          message,
        );
      }
    } catch (error) {
      problems.push(`[${entry.requestMethod ?? '?'} → ${entry.status}] ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Error(`${problems.length} invalid server message(s):\n${problems.join('\n\n')}`);
  return messages.length;
}
