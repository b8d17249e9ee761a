import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpCallTracker } from '../../libs/mcp/src/server/call.tracker.js';
import { CatalogModule } from '../fixtures/catalog.fixture.js';
import { elicitationModule } from '../fixtures/elicitation.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { base64Sentinel, mcpPost, PROTOCOL_VERSION, requestMeta } from '../support/raw-request.util.js';
import { CODES_BY_STATUS, expectResult, type WireMessage } from '../support/wire-response.util.js';
import { assertValidServerMessage, sseDataFrames } from '../support/wire-schema.validator.js';

/**
 * Property-based fuzzing of the endpoint (issue 8) with fast-check: arbitrary bodies and near-valid requests (valid
 * ones with fields dropped, replaced by values of any JSON type, random methods, names and URIs, broken headers).
 * Whatever is sent, the server must answer within the timeout, never with a 5xx, with a body that is a valid
 * 2026-07-28 message (every SSE frame too) whose status and JSON-RPC code agree, that echoes the id it could read,
 * that leaks nothing — and without an unhandled rejection or exception anywhere in the process.
 *
 * Runs are bounded and the seed is fixed (fast-check prints seed and path of a failure); override with FUZZ_SEED
 * and FUZZ_RUNS to explore further.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_728);
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const REQUEST_TIMEOUT_MS = 5_000;

/** Methods a mutation may put in: every real one (listen aside: it never ends), removed ones, near misses. */
const METHODS = [
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'notifications/initialized',
  'notifications/cancelled',
  'tasks/get',
  'sampling/createMessage',
  'tools/Call',
  'constructor',
  '__proto__',
  '',
];

/** Valid 2026-07-28 requests against the catalog fixture: the seeds every mutation starts from. */
const VALID: ReadonlyArray<{ method: string; params: Record<string, unknown> }> = [
  { method: 'server/discover', params: {} },
  { method: 'tools/list', params: {} },
  { method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
  { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
  {
    method: 'tools/call',
    params: {
      name: 'placeOrder',
      arguments: { customer: 'c', lines: [{ sku: 'apple', quantity: 2 }], shipping: 'express' },
    },
  },
  { method: 'tools/call', params: { name: 'crash', arguments: {} } },
  { method: 'tools/call', params: { name: 'outOfStock', arguments: {} } },
  { method: 'tools/call', params: { name: 'shout', arguments: { text: 'hey' } } },
  { method: 'prompts/list', params: {} },
  { method: 'prompts/get', params: { name: 'describeFruit', arguments: { fruit: 'apple', tone: 'dry' } } },
  { method: 'resources/list', params: {} },
  { method: 'resources/templates/list', params: {} },
  { method: 'resources/read', params: { uri: 'catalog://skus' } },
  { method: 'resources/read', params: { uri: 'catalog://items/apple' } },
  {
    method: 'completion/complete',
    params: { ref: { type: 'ref/prompt', name: 'describeFruit' }, argument: { name: 'fruit', value: 'a' } },
  },
  {
    method: 'completion/complete',
    params: { ref: { type: 'ref/resource', uri: 'catalog://items/{sku}' }, argument: { name: 'sku', value: 'b' } },
  },
];

const NAME_FIELD: Readonly<Record<string, 'name' | 'uri' | undefined>> = Object.assign(Object.create(null), {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
});

const PRINTABLE = /^[\x20-\x7e]*$/;
const LEAKS = /\n\s+at |node_modules|\/work\/|\.ts:\d+|\.js:\d+/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Any JSON value, strings over all of Unicode. */
const anyJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) as fc.Arbitrary<Json>;

/** Keys a mutation may add: prototype-sensitive names, MCP field names, and random text. */
const anyKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'id',
    'method',
    'params',
    '_meta',
    'name',
    'uri',
    'arguments',
    'cursor',
    'requestState',
    'inputResponses',
    'progressToken',
    'io.modelcontextprotocol/logLevel',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

/** One change to a request, resolved against the request's own paths when applied (so shrinking stays readable). */
type Mutation =
  | { kind: 'set'; at: number; value: Json }
  | { kind: 'drop'; at: number }
  | { kind: 'add'; at: number; key: string; value: Json }
  | { kind: 'method'; value: string }
  | { kind: 'target'; value: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: anyJson }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), key: anyKey, value: anyJson }),
  fc.record({
    kind: fc.constant('method' as const),
    value: fc.oneof(fc.constantFrom(...METHODS), fc.string({ unit: 'binary', maxLength: 20 })),
  }),
  fc.record({
    kind: fc.constant('target' as const),
    value: fc.oneof(
      fc.constantFrom(
        'add',
        'nope',
        'catalog://items/../x',
        'catalog://items/%ZZ',
        'catalog://',
        '',
        'constructor',
        'catalog://items/a%2Fb',
      ),
      fc.string({ unit: 'binary', maxLength: 30 }),
    ),
  }),
);

/** One change to the headers the body implies. */
type HeaderMutation =
  | { kind: 'none' }
  | { kind: 'drop'; header: string }
  | { kind: 'set'; header: string; value: string };

const STANDARD_HEADERS = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];
const headerMutation: fc.Arbitrary<HeaderMutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('drop' as const), header: fc.constantFrom(...STANDARD_HEADERS) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      header: fc.constantFrom(...STANDARD_HEADERS, 'mcp-param-region', 'origin', 'content-encoding'),
      value: fc.oneof(
        fc.constantFrom(
          'application/json',
          'text/event-stream',
          'text/plain',
          '*/*',
          '2025-11-25',
          '2026-07-28',
          'tools/list',
          'null',
          '=?base64?YWRk?=',
          'gzip',
        ),
        fc.stringMatching(/^[\x21-\x7e]{0,40}$/),
      ),
    }),
  },
);

/** Every path (as key lists) of objects and arrays inside `value`, the root included. */
function pathsOf(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (value !== null && typeof value === 'object') {
    out.push(prefix);
    for (const key of Object.keys(value)) pathsOf((value as Record<string, unknown>)[key], [...prefix, key], out);
  } else {
    out.push(prefix);
  }
  return out;
}

function parentOf(root: Record<string, unknown>, path: string[]): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

/** Applies mutations to a copy of `message`. Own `__proto__` keys are kept as data (defineProperty). */
function mutate(message: Record<string, unknown>, mutations: readonly Mutation[]): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
  const define = (target: Record<string, unknown>, key: string, value: unknown) =>
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  for (const change of mutations) {
    const paths = pathsOf(copy).filter((path) => path.length > 0);
    if (change.kind === 'method') define(copy, 'method', change.value);
    else if (change.kind === 'target') {
      const params = copy.params;
      if (params !== null && typeof params === 'object' && !Array.isArray(params)) {
        const field = typeof copy.method === 'string' && NAME_FIELD[copy.method] ? NAME_FIELD[copy.method]! : 'name';
        define(params as Record<string, unknown>, field, change.value);
      }
    } else if (change.kind === 'add') {
      const objects = pathsOf(copy).filter((path) => {
        const node = path.reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], copy);
        return node !== null && typeof node === 'object' && !Array.isArray(node);
      });
      const path = objects[change.at % objects.length];
      const node = path.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], copy) as Record<
        string,
        unknown
      >;
      define(node, change.key, change.value);
    } else if (paths.length > 0) {
      const path = paths[change.at % paths.length];
      const parent = parentOf(copy, path);
      if (!parent) continue;
      const key = path.at(-1)!;
      if (change.kind === 'drop') {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key];
      } else define(parent, key, change.value);
    }
  }
  return copy;
}

/** The headers a client would send for `message`: mirrors of its method and name/uri, when they can be mirrored. */
function headersFor(message: Record<string, unknown>, change: HeaderMutation): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
  };
  if (typeof message.method === 'string' && PRINTABLE.test(message.method)) headers['mcp-method'] = message.method;
  const field = typeof message.method === 'string' ? NAME_FIELD[message.method] : undefined;
  const params = message.params as Record<string, unknown> | undefined;
  const target = field && params && typeof params === 'object' ? params[field] : undefined;
  if (typeof target === 'string') {
    headers['mcp-name'] =
      PRINTABLE.test(target) && target.trim() === target && !target.startsWith('=?') ? target : base64Sentinel(target);
  }
  if (change.kind === 'drop') delete headers[change.header];
  if (change.kind === 'set') headers[change.header] = change.value;
  return headers;
}

/** What was sent, for the oracle. */
interface Sent {
  /** The id as the server could read it (string or integer), if any. */
  id?: string | number;
  method?: string;
}

function sentOf(body: string): Sent {
  try {
    const parsed = JSON.parse(body) as { id?: unknown; method?: unknown };
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const id =
      typeof parsed.id === 'string' || (typeof parsed.id === 'number' && Number.isInteger(parsed.id))
        ? parsed.id
        : undefined;
    return { id, method: typeof parsed.method === 'string' ? parsed.method : undefined };
  } catch {
    return {};
  }
}

/** Sends one request with a timeout; a hang is a failure of the property. */
async function send(
  url: URL,
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string; text: string }> {
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(
      `no answer within ${REQUEST_TIMEOUT_MS} ms (or the connection failed): ${(error as Error).message}`,
    );
  }
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
}

/**
 * The oracle: no 5xx; 202 only with an empty body; otherwise JSON or SSE whose every message is valid against the
 * official schema; an error's code allowed for its status; ids echoed; nothing leaked.
 */
function checkAnswer(sent: Sent, answer: { status: number; contentType: string; text: string }): void {
  const context = `status ${answer.status}, sent ${JSON.stringify(sent)}: ${answer.text.slice(0, 300)}`;
  if (answer.status >= 500) throw new Error(`5xx answer: ${context}`);
  if (answer.status === 202) {
    if (answer.text !== '') throw new Error(`202 with a body: ${context}`);
    return;
  }
  if (LEAKS.test(answer.text)) throw new Error(`the answer leaks internals: ${context}`);
  let messages: WireMessage[];
  if (answer.contentType.startsWith('text/event-stream')) {
    if (answer.status !== 200) throw new Error(`an SSE answer with status ${answer.status}: ${context}`);
    messages = sseDataFrames(answer.text).map((data) => JSON.parse(data) as WireMessage);
    if (messages.length === 0) throw new Error(`an empty SSE answer: ${context}`);
  } else if (answer.contentType.startsWith('application/json')) {
    messages = [JSON.parse(answer.text) as WireMessage];
  } else {
    throw new Error(`unexpected content type ${JSON.stringify(answer.contentType)}: ${context}`);
  }
  const final = messages.at(-1)!;
  for (const message of messages) {
    const resultMethod = message === final && 'result' in message ? sent.method : undefined;
    assertValidServerMessage(message, resultMethod);
  }
  if (final.error) {
    const allowed = CODES_BY_STATUS[answer.status];
    if (!allowed) throw new Error(`an error with unexpected status ${answer.status}: ${context}`);
    if (!allowed.includes(final.error.code))
      throw new Error(`code ${final.error.code} does not go with HTTP ${answer.status}: ${context}`);
    if ('id' in final && final.id !== sent.id)
      throw new Error(`the error's id does not echo the request's: ${context}`);
  } else {
    if (answer.status !== 200) throw new Error(`a result with status ${answer.status}: ${context}`);
    if (final.id !== sent.id) throw new Error(`the result's id does not echo the request's: ${context}`);
  }
}

describe.each(ADAPTERS)('fuzzing the endpoint (%s)', (adapter) => {
  let catalog: RunningApp;
  let elicit: RunningApp;
  const problems: unknown[] = [];
  const onRejection = (reason: unknown) => problems.push(reason);
  const onException = (error: unknown) => problems.push(error);
  let nextId = 1;
  const settings = (runs = RUNS) => ({ seed: SEED, numRuns: runs, endOnFailure: true });

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    [catalog, elicit] = await Promise.all([
      startApp(adapter, { imports: [CatalogModule] }),
      startApp(adapter, { imports: [elicitationModule()] }),
    ]);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
    await Promise.all([catalog?.close(), elicit?.close()]);
  });

  it(`arbitrary JSON bodies (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(anyJson, fc.constantFrom(...METHODS), async (value, method) => {
        const body = JSON.stringify(value);
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': PROTOCOL_VERSION,
          'mcp-method': method,
        };
        checkAnswer(sentOf(body), await send(catalog.mcpUrl, body, headers));
      }),
      settings(),
    );
  });

  it(`arbitrary text and bytes (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.uint8Array({ maxLength: 200 })),
        async (payload) => {
          const headers = {
            'content-type': 'application/json',
            'mcp-protocol-version': PROTOCOL_VERSION,
            'mcp-method': 'tools/list',
          };
          const sent = typeof payload === 'string' ? sentOf(payload) : sentOf(Buffer.from(payload).toString('utf8'));
          checkAnswer(
            sent,
            await send(catalog.mcpUrl, typeof payload === 'string' ? payload : new Uint8Array(payload), headers),
          );
        },
      ),
      settings(),
    );
  });

  it(`near-valid requests: valid ones with 1-3 mutations and a header change (${RUNS * 2} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...VALID),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        headerMutation,
        fc.boolean(),
        async (base, mutations, headerChange, wantsProgress) => {
          const meta = requestMeta(
            wantsProgress ? { progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'debug' } : {},
          );
          const message = mutate(
            { jsonrpc: '2.0', id: nextId++, method: base.method, params: { ...base.params, _meta: meta } },
            mutations,
          );
          const body = JSON.stringify(message);
          checkAnswer(sentOf(body), await send(catalog.mcpUrl, body, headersFor(message, headerChange)));
        },
      ),
      settings(RUNS * 2),
    );
  });

  it(`unknown methods, including Object.prototype names, with a valid envelope and headers → 404 / -32601 (${RUNS} runs)`, async () => {
    const served = new Set(METHODS.slice(0, 9).concat('subscriptions/listen'));
    const names = fc
      .oneof(
        fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype), 'tasks/list', 'ping', 'initialize'),
        fc.stringMatching(/^[a-zA-Z_/.]{1,30}$/),
      )
      .filter((name) => !served.has(name));
    await fc.assert(
      fc.asyncProperty(names, async (method) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { _meta: requestMeta() } });
        const answer = await send(catalog.mcpUrl, body, headersFor({ method }, { kind: 'none' }));
        checkAnswer(sentOf(body), answer);
        if (answer.status !== 404 || (JSON.parse(answer.text) as WireMessage).error?.code !== -32601) {
          throw new Error(`${JSON.stringify(method)} → ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }),
      settings(),
    );
  });

  it(`near-valid retries of a multi-round call: mutated requestState, inputResponses and arguments (${RUNS} runs)`, async () => {
    const capabilities = { elicitation: { form: {} } };
    const first = await mcpPost(elicit.mcpUrl, {
      method: 'tools/call',
      params: { name: 'twoStep', arguments: { greeting: 'hi' } },
      meta: requestMeta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
    });
    const state = expectResult<{ requestState: string }>(first, 'tools/call').requestState;
    const stateEdit = fc.oneof(
      fc.constant(state),
      fc
        .nat({ max: state.length - 1 })
        .map((at) => `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`),
      fc.nat({ max: state.length }).map((at) => state.slice(0, at)),
      anyJson,
    );
    const answers = fc.oneof(
      fc.constant({ name: { action: 'accept', content: { name: 'Ada' } } } as Json),
      fc.record({
        name: fc.record({ action: fc.constantFrom('accept', 'decline', 'cancel', 'maybe'), content: anyJson }),
      }) as fc.Arbitrary<Json>,
      anyJson,
    );
    await fc.assert(
      fc.asyncProperty(
        stateEdit,
        answers,
        fc.option(anyJson),
        fc.constantFrom('twoStep', 'progressThenAsk'),
        async (requestState, inputResponses, args, name) => {
          // progressThenAsk reports progress first: its answers are SSE streams, checked frame by frame.
          const params: Record<string, unknown> = {
            name,
            arguments: args ?? { greeting: 'hi' },
            requestState,
            inputResponses,
            _meta: requestMeta({
              'io.modelcontextprotocol/clientCapabilities': capabilities,
              progressToken: `p${nextId}`,
            }),
          };
          const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params });
          const headers = headersFor({ method: 'tools/call', params }, { kind: 'none' });
          checkAnswer(sentOf(body), await send(elicit.mcpUrl, body, headers));
        },
      ),
      settings(),
    );
  });

  it('afterwards: no unhandled rejection or exception, nothing in flight, and a valid request is served', async () => {
    expect(problems).toEqual([]);
    for (const running of [catalog, elicit]) {
      await expect.poll(() => running.app.get(McpCallTracker).size, { timeout: 2_000 }).toBe(0);
    }
    const response = await mcpPost(catalog.mcpUrl, {
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 40, b: 2 } },
    });
    expect(expectResult<{ structuredContent: unknown }>(response, 'tools/call').structuredContent).toEqual({ sum: 42 });
  });
});
