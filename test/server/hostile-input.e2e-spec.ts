import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestStateCodec } from '../../libs/mcp/src/mrtr/request-state.codec.js';
import { CatalogModule } from '../fixtures/catalog.fixture.js';
import { elicitationModule, TEST_STATE_KEY } from '../fixtures/elicitation.fixture.js';
import { Probe } from '../fixtures/interactive.fixture.js';
import { HostileModule, HostileProbe } from '../fixtures/hostile.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import {
  base64Sentinel,
  mcpHeaders,
  mcpPost,
  mcpPostViaHttp,
  requestMeta,
  type RawResponse,
} from '../support/raw-request.util.js';
import {
  expectError,
  expectResult,
  jsonOf,
  messagesOf,
  rawHttp,
  rawPost,
  textOf,
  type WireMessage,
} from '../support/wire-response.util.js';
import { assertValidServerMessage } from '../support/wire-schema.validator.js';

/**
 * Hostile input (issue 8): what a broken client or an attacker can send, and what the server must answer — the exact
 * HTTP status and JSON-RPC code (or Node's own answer for HTTP that never reaches the application), a schema-valid
 * body that leaks nothing, no prototype pollution, and a server that serves the next request normally.
 *
 * What the HTTP rule matrix (http-errors), elicitation, progress, cancellation/logging and subscription suites
 * already cover is not repeated here.
 */

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const FORM = { elicitation: { form: {} } };
const MiB = 1024 * 1024;

/** The own properties of Object.prototype before any test ran: a polluted prototype gains keys. */
const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

function expectNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(probe.elicitation).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_KEYS);
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
  expect(Object.getPrototypeOf([])).toBe(Array.prototype);
}

/** A JSON-RPC request body as text, with the 2026 envelope. */
function body(
  method: string,
  params: Record<string, unknown> = {},
  id: unknown = 7,
  meta: unknown = requestMeta(),
): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
}

/** Sets `value` at a dotted path of a fresh copy of `target` (`params._meta.x`); `undefined` deletes. */
function withValueAt(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(target);
  const keys = path.split('|');
  let node = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
  return copy;
}

/** `n` nested arrays around `inner`. */
const nestedArrays = (n: number, inner = '0') => `${'['.repeat(n)}${inner}${']'.repeat(n)}`;

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe.each(ADAPTERS)('hostile input (%s)', (adapter) => {
  let catalog: RunningApp;
  let elicit: RunningApp;
  let hostile: RunningApp;
  let probe: HostileProbe;
  let elicitProbe: Probe;

  /** After a rejected request the server must still answer a correct one. */
  async function expectStillServing(url: URL = catalog.mcpUrl): Promise<void> {
    if (url === catalog.mcpUrl) {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 20, b: 22 } },
      });
      expect(expectResult<{ structuredContent: unknown }>(response, 'tools/call').structuredContent).toEqual({
        sum: 42,
      });
    } else {
      const response = await mcpPost(url, { method: 'tools/list' });
      expectResult(response, 'tools/list');
    }
  }

  beforeAll(async () => {
    [catalog, elicit, hostile] = await Promise.all([
      startApp(adapter, { imports: [CatalogModule] }),
      startApp(adapter, { imports: [elicitationModule()] }),
      startApp(adapter, { imports: [HostileModule] }),
    ]);
    probe = hostile.app.get(HostileProbe);
    elicitProbe = elicit.app.get(Probe);
  });
  afterEach(() => {
    expectNoPollution();
  });
  afterAll(async () => {
    await Promise.all([catalog?.close(), elicit?.close(), hostile?.close()]);
  });

  describe('malformed and truncated JSON', () => {
    const full = body('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });

    it.each([
      ['an empty body', ''],
      ['only whitespace', ' \r\n\t '],
      ['a lone brace', '{'],
      ['cut after 1 byte', full.slice(0, 1)],
      ['cut inside a key', full.slice(0, 14)],
      ['cut in the middle', full.slice(0, Math.floor(full.length / 2))],
      ['cut before the last brace', full.slice(0, -1)],
      ['trailing garbage', `${full}x`],
      ['two messages back to back', `${full}${full}`],
      ['single quotes', full.replaceAll('"', "'")],
      ['unquoted keys', '{jsonrpc:"2.0",id:1,method:"tools/list"}'],
      ['a trailing comma', full.replace(/}$/, ',}')],
      ['a comment', `/* hi */${full}`],
      ['NaN', '{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}'],
      ['a raw control character inside a string', full.replace('"add"', '"a\u0001dd"')],
      ['a byte order mark (RFC 8259 lets parsers refuse it)', `\uFEFF${full}`],
    ])('%s → 400 / -32700 without id', async (_label, rawBody) => {
      expectError(
        await mcpPost(catalog.mcpUrl, { method: 'tools/call', params: { name: 'add' }, rawBody }),
        400,
        -32700,
        'absent',
      );
      await expectStillServing();
    });

    it('invalid UTF-8 in the body → 400 / -32700 (not decoded to U+FFFD and served)', async () => {
      const prefix = Buffer.from(body('tools/call', { name: 'echo', arguments: { text: 'PLACEHOLDER' } }));
      const at = prefix.indexOf('PLACEHOLDER');
      const bytes = Buffer.concat([
        prefix.subarray(0, at),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
        prefix.subarray(at + 'PLACEHOLDER'.length),
      ]);
      const response = await fetch(catalog.mcpUrl, {
        method: 'POST',
        headers: mcpHeaders('tools/call', { name: 'echo' }),
        body: bytes,
      });
      const text = await response.text();
      const raw: RawResponse = {
        status: response.status,
        headers: response.headers,
        text,
        json: text ? JSON.parse(text) : undefined,
      };
      expectError(raw, 400, -32700, 'absent');
      await expectStillServing();
    });

    it.each([
      ['null', 'null'],
      ['a number', '42'],
      ['a string', '"tools/list"'],
      ['true', 'true'],
      ['an empty object', '{}'],
    ])('valid JSON that is not a request object (%s) → 400 / -32600', async (_label, rawBody) => {
      expectError(await mcpPost(catalog.mcpUrl, { method: 'tools/list', rawBody }), 400, -32600, 'absent');
      await expectStillServing();
    });
  });

  describe('wrong JSON types at every level of the envelope and _meta', () => {
    const base = {
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: requestMeta() },
    };
    const WRONG: Record<string, unknown> = {
      object: { x: 1 },
      array: [1, 'two'],
      float: 1.5,
      bool: true,
      null: null,
      number: 7,
      string: 'text',
      empty: '',
    };
    /** path → [the wrong types to try, HTTP status, JSON-RPC code, id handling]. */
    const TABLE: Array<[string, string[], number, number, 'echoed' | 'absent']> = [
      ['id', ['object', 'array', 'float', 'bool', 'null'], 400, -32600, 'absent'],
      ['jsonrpc', ['object', 'array', 'float', 'bool', 'null', 'number', 'string', 'empty'], 400, -32600, 'echoed'],
      ['method', ['object', 'array', 'float', 'bool', 'null', 'number', 'empty'], 400, -32600, 'echoed'],
      ['params', ['array', 'float', 'bool', 'null', 'number', 'string', 'empty'], 400, -32600, 'echoed'],
      [
        'params|_meta',
        ['object', 'array', 'float', 'bool', 'null', 'number', 'string', 'empty'],
        400,
        -32602,
        'echoed',
      ],
      [
        'params|_meta|io.modelcontextprotocol/protocolVersion',
        ['object', 'array', 'float', 'bool', 'null', 'number', 'empty'],
        400,
        -32602,
        'echoed',
      ],
      [
        'params|_meta|io.modelcontextprotocol/clientCapabilities',
        ['array', 'float', 'bool', 'null', 'number', 'empty'],
        400,
        -32602,
        'echoed',
      ],
      [
        'params|_meta|io.modelcontextprotocol/clientInfo',
        ['array', 'float', 'bool', 'null', 'number', 'string'],
        400,
        -32602,
        'echoed',
      ],
      [
        'params|_meta|io.modelcontextprotocol/logLevel',
        ['object', 'array', 'float', 'bool', 'null', 'empty'],
        400,
        -32602,
        'echoed',
      ],
      ['params|_meta|progressToken', ['array'], 400, -32602, 'echoed'],
      // With an Mcp-Name header that mirrors the value as text, so the body's type is what gets judged.
      ['params|name', ['object', 'array', 'float', 'bool', 'null', 'number', 'empty'], 200, -32602, 'echoed'],
      ['params|arguments', ['array', 'float', 'bool', 'number', 'string', 'empty'], 200, -32602, 'echoed'],
    ];
    const cases = TABLE.flatMap(([path, kinds, status, code, id]) =>
      kinds.map((kind) => [path.replaceAll('|', '.'), kind, path, status, code, id] as const),
    );

    it.each(cases)('%s as %s', async (_label, kind, path, status, code, id) => {
      const value = WRONG[kind];
      const message = withValueAt(base, path, value);
      const headers: Record<string, string> = {};
      if (path === 'params|name') headers['mcp-name'] = typeof value === 'string' ? value : JSON.stringify(value);
      const response = await mcpPost(catalog.mcpUrl, {
        method: 'tools/call',
        params: { name: 'add' },
        headers,
        rawBody: JSON.stringify(message),
      });
      expectError(response, status, code, id);
      if (id === 'echoed') expect((response.json as WireMessage).id).toBe(42);
      await expectStillServing();
    });

    it.each([
      ['jsonrpc missing', 'jsonrpc', 400, -32600],
      ['method missing', 'method', 400, -32600],
    ] as const)('%s → %i / %i, id echoed', async (_label, path, status, code) => {
      const response = await mcpPost(catalog.mcpUrl, {
        method: 'tools/call',
        params: { name: 'add' },
        rawBody: JSON.stringify(withValueAt(base, path, undefined)),
      });
      expectError(response, status, code, 'echoed');
      await expectStillServing();
    });

    it.each([
      ['a huge integer (1e300)', 1e300],
      ['a negative integer', -5],
      ['an empty string', ''],
      ['a 1 MiB string', 'i'.repeat(MiB)],
      ['a string of unicode and escapes', 'ü\u0000\u2028"\\'],
    ])('an id that is %s is a valid id, echoed exactly', async (_label, id) => {
      const response = await mcpPost(catalog.mcpUrl, {
        method: 'tools/list',
        rawBody: JSON.stringify({ ...base, method: 'tools/list', params: { _meta: requestMeta() }, id }),
      });
      expectResult(response, 'tools/list');
      expect((response.json as WireMessage).id).toBe(id);
    });

    it('arguments: null is taken as no arguments (the tool then judges them: isError)', async () => {
      const response = await mcpPost(catalog.mcpUrl, {
        method: 'tools/call',
        params: { name: 'add' },
        rawBody: JSON.stringify(withValueAt(base, 'params|arguments', null)),
      });
      const result = expectResult<{ isError?: boolean; content: unknown }>(response, 'tools/call');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/Invalid arguments for tool "add"/);
    });

    it('a notification whose params are an array → 400 / -32600 without id', async () => {
      const rawBody = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: [1] });
      expectError(await mcpPost(catalog.mcpUrl, { method: 'notifications/cancelled', rawBody }), 400, -32600, 'absent');
      await expectStillServing();
    });
  });

  describe('batch arrays', () => {
    it.each([
      ['an empty batch', []],
      ['a batch of one valid request', [JSON.parse(body('tools/list'))]],
      [
        'a batch of one notification',
        [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
      ],
      ['a nested batch', [[JSON.parse(body('tools/list'))]]],
      [
        'a batch of 10,000 requests',
        Array.from({ length: 10_000 }, (_, id) => ({ ...JSON.parse(body('tools/list')), id })),
      ],
    ])('%s → 400 / -32600 without id', async (_label, batch) => {
      expectError(
        await mcpPost(catalog.mcpUrl, { method: 'tools/list', rawBody: JSON.stringify(batch) }),
        400,
        -32600,
        'absent',
      );
      await expectStillServing();
    });
  });

  describe('huge bodies and huge strings', () => {
    /** A tools/call of `echo` whose body is exactly `size` bytes. */
    function echoBodyOfSize(size: number): string {
      const empty = body('tools/call', { name: 'echo', arguments: { text: '' } });
      return body('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(size - Buffer.byteLength(empty)) } });
    }

    it('a body of exactly maxBodyBytes (4 MiB) is served', async () => {
      const rawBody = echoBodyOfSize(4 * MiB);
      expect(Buffer.byteLength(rawBody)).toBe(4 * MiB);
      const result = expectResult<{ content: Array<{ text: string }> }>(
        await mcpPost(catalog.mcpUrl, { method: 'tools/call', params: { name: 'echo' }, rawBody }),
        'tools/call',
      );
      expect(result.content[0].text.length).toBeGreaterThan(4 * MiB - 1024);
    });

    it('one byte over maxBodyBytes → 413 / -32600', async () => {
      expectError(
        await mcpPost(catalog.mcpUrl, {
          method: 'tools/call',
          params: { name: 'echo' },
          rawBody: echoBodyOfSize(4 * MiB + 1),
        }),
        413,
        -32600,
        'either',
      );
      await expectStillServing();
    });

    it('a chunked body (no Content-Length) over the limit → 413 / -32600', async () => {
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const outgoing = httpRequest(
          catalog.mcpUrl,
          {
            method: 'POST',
            headers: { ...mcpHeaders('tools/call', { name: 'echo' }), 'transfer-encoding': 'chunked' },
          },
          (incoming) => {
            const chunks: Buffer[] = [];
            incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
            incoming.on('end', () =>
              resolve({ status: incoming.statusCode!, text: Buffer.concat(chunks).toString('utf8') }),
            );
          },
        );
        outgoing.on('error', reject);
        const chunk = 'x'.repeat(64 * 1024);
        outgoing.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"');
        for (let sent = 0; sent < 5 * MiB; sent += chunk.length) outgoing.write(chunk);
        outgoing.end('"}}}');
      });
      expect(answer.status).toBe(413);
      const message = JSON.parse(answer.text) as WireMessage;
      assertValidServerMessage(message);
      expect(message.error?.code).toBe(-32600);
      await expectStillServing();
    });

    it('a declared Content-Length far over the limit is answered 413 at once, without reading the body', async () => {
      // A client that announces 1 GiB and trickles it must not hold the server to read (and discard) all of it.
      const socket = connect(Number(catalog.mcpUrl.port), catalog.mcpUrl.hostname);
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.on('error', () => undefined);
      const head = [
        `POST ${catalog.mcpUrl.pathname} HTTP/1.1`,
        `Host: 127.0.0.1:${catalog.mcpUrl.port}`,
        ...Object.entries(mcpHeaders('tools/call', { name: 'echo' })).map(([name, value]) => `${name}: ${value}`),
        `Content-Length: ${1024 * MiB}`,
      ].join('\r\n');
      socket.write(`${head}\r\n\r\n${'x'.repeat(256 * 1024)}`);
      const deadline = Date.now() + 2_000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
      const text = Buffer.concat(received).toString('latin1');
      expect(text.slice(0, 40), 'no answer within 2 s while the client kept sending').toMatch(/^HTTP\/1\.1 413 /);
      await expectStillServing();
    });

    it('huge strings inside the limits are served: a 3.5 MiB argument, a 1 MiB _meta value, a 1 MiB progress token', async () => {
      const big = 'b'.repeat(3.5 * MiB);
      const inspected = expectResult<{ content: unknown }>(
        await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'inspect', arguments: { big } } }),
        'tools/call',
      );
      expect(textOf(inspected)).toBe('["big"]');
      expect(probe.inspected!.args.big).toBe(big);

      const meta = requestMeta({ 'com.example/blob': 'm'.repeat(MiB) });
      expectResult(await mcpPost(catalog.mcpUrl, { method: 'tools/list', meta }), 'tools/list');

      // Each progress frame (over 1 MiB) exceeds the 64 KiB slow-reader queue by itself: frames that cannot be queued
      // may be dropped, but what arrives carries the token exactly and the response comes last.
      const token = 't'.repeat(MiB);
      const streamed = await mcpPost(hostile.mcpUrl, {
        method: 'tools/call',
        params: { name: 'ticks', arguments: {} },
        meta: requestMeta({ progressToken: token }),
      });
      const messages = messagesOf(streamed, 'tools/call');
      expect(messages[0].method).toBe('notifications/progress');
      for (const message of messages.slice(0, -1)) expect(message.params?.progressToken).toBe(token);
      expect(messages.at(-1)!.result).toMatchObject({ content: [{ type: 'text', text: 'ticked' }] });
    });

    it("100,000 keys in a strict tool's arguments: a prompt isError of bounded size, not a stall or a flood", async () => {
      const args: Record<string, unknown> = { label: 'x' };
      for (let index = 0; index < 100_000; index++) args[`k${index}`] = index;
      const started = Date.now();
      const result = expectResult<{ isError?: boolean; content: unknown }>(
        await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'strict', arguments: args } }),
        'tools/call',
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result.isError).toBe(true);
      expect(textOf(result).length).toBeLessThan(10_000);
      await expectStillServing(hostile.mcpUrl);
    });

    it('an argument that is an array of 500,000 numbers is served', async () => {
      const list = Array.from({ length: 500_000 }, (_, index) => index);
      const result = expectResult<{ content: unknown }>(
        await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'inspect', arguments: { list } } }),
        'tools/call',
      );
      expect(textOf(result)).toBe('["list"]');
    });

    it("a 12 KB tool name in body and Mcp-Name (under Node's 16 KB header limit) → 200 / -32602 unknown tool", async () => {
      const name = 'n'.repeat(12 * 1024);
      expectError(
        await mcpPost(catalog.mcpUrl, { method: 'tools/call', params: { name, arguments: {} } }),
        200,
        -32602,
      );
      await expectStillServing();
    });
  });

  describe('deep nesting', () => {
    it('100,000 nested arrays as the body → 400 / -32600, no crash', async () => {
      expectError(
        await mcpPost(catalog.mcpUrl, { method: 'tools/list', rawBody: nestedArrays(100_000) }),
        400,
        -32600,
        'absent',
      );
      await expectStillServing();
    });

    it('100,000 nested objects inside the arguments → 400 / -32600, no crash', async () => {
      const deep = `${'{"a":'.repeat(100_000)}0${'}'.repeat(100_000)}`;
      const rawBody = body('tools/call', { name: 'add', arguments: { a: 1, b: 2, deep: '@DEEP@' } }).replace(
        '"@DEEP@"',
        deep,
      );
      expectError(
        await mcpPost(catalog.mcpUrl, { method: 'tools/call', params: { name: 'add' }, rawBody }),
        400,
        -32600,
        'either',
      );
      await expectStillServing();
    });

    it('100,000 nested arrays inside _meta and inputResponses → 400 / -32600', async () => {
      for (const where of ['_meta', 'inputResponses']) {
        const message = JSON.parse(body('tools/call', { name: 'inspect', arguments: {} })) as {
          params: Record<string, unknown>;
        };
        if (where === '_meta') (message.params._meta as Record<string, unknown>)['com.example/deep'] = '@DEEP@';
        else message.params.inputResponses = { deep: '@DEEP@' };
        const rawBody = JSON.stringify(message).replace('"@DEEP@"', nestedArrays(100_000));
        expectError(
          await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'inspect' }, rawBody }),
          400,
          -32600,
          'either',
        );
      }
      await expectStillServing(hostile.mcpUrl);
    });

    it('nesting up to the default bound (64 levels, envelope included) is served; one more level is refused', async () => {
      // body {, params {, arguments { = 3 levels; then n arrays.
      const atBound = body('tools/call', { name: 'inspect', arguments: { x: '@X@' } }).replace(
        '"@X@"',
        nestedArrays(61),
      );
      expectResult(
        await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'inspect' }, rawBody: atBound }),
        'tools/call',
      );
      const over = body('tools/call', { name: 'inspect', arguments: { x: '@X@' } }).replace('"@X@"', nestedArrays(62));
      expectError(
        await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'inspect' }, rawBody: over }),
        400,
        -32600,
        'either',
      );
    });

    it('brackets and escaped quotes inside strings do not count as nesting', async () => {
      for (const text of [
        '['.repeat(100_000),
        `\\"${'{'.repeat(5_000)}`,
        `${'\\'.repeat(3)}"[[[[`,
        `x\\\\${'['.repeat(200)}`,
      ]) {
        const response = await mcpPost(catalog.mcpUrl, {
          method: 'tools/call',
          params: { name: 'echo', arguments: { text } },
        });
        expect(textOf(expectResult(response, 'tools/call'))).toBe(`echo: ${text}`);
      }
    });
  });

  describe('__proto__, constructor and prototype keys (no prototype pollution)', () => {
    const POISON =
      '{"__proto__":{"polluted":"yes","elicitation":{"form":{}}},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}';

    /** A request body with the poison object spliced in at `marker`. */
    const poisoned = (text: string) => text.replaceAll('"@POISON@"', POISON);

    it('in params: the call behaves normally', async () => {
      const rawBody = poisoned(
        body('tools/call', { name: 'add', arguments: { a: 1, b: 2 }, extra: '@POISON@' }),
      ).replace('"extra":', '"__proto__":');
      const result = expectResult<{ structuredContent: unknown }>(
        await mcpPost(catalog.mcpUrl, { method: 'tools/call', params: { name: 'add' }, rawBody }),
        'tools/call',
      );
      expect(result.structuredContent).toEqual({ sum: 3 });
    });

    it('in the arguments of a DTO tool (class-transformer, class-validator): the call behaves normally', async () => {
      const rawBody = body('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }).replace(
        '"a":2',
        `"a":2,${POISON.slice(1, -1)}`,
      );
      const result = expectResult<{ structuredContent: unknown }>(
        await mcpPost(catalog.mcpUrl, { method: 'tools/call', params: { name: 'add' }, rawBody }),
        'tools/call',
      );
      expect(result.structuredContent).toEqual({ sum: 5 });
    });

    it('in the arguments of a JSON Schema tool: they arrive as plain own data, the prototype untouched', async () => {
      const rawBody = body('tools/call', { name: 'inspect', arguments: { keep: 1 } }).replace(
        '"keep":1',
        `"keep":1,${POISON.slice(1, -1)}`,
      );
      const result = expectResult<{ content: unknown }>(
        await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'inspect' }, rawBody }),
        'tools/call',
      );
      expect(JSON.parse(textOf(result))).toEqual(expect.arrayContaining(['keep', 'constructor', 'prototype']));
      expect(probe.inspected!.prototypeIsObject).toBe(true);
      expect((probe.inspected!.args as { polluted?: unknown }).polluted).toBeUndefined();
    });

    it('in a strict schema (additionalProperties: false): __proto__ counts as an extra property → isError', async () => {
      const rawBody = body('tools/call', { name: 'strict', arguments: { label: 'x' } }).replace(
        '"label":"x"',
        '"label":"x","__proto__":{"count":99}',
      );
      const result = expectResult<{ isError?: boolean; content: unknown }>(
        await mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name: 'strict' }, rawBody }),
        'tools/call',
      );
      expect(result.isError).toBe(true);
    });

    it('in _meta: the request is served; required keys that exist only under __proto__ do not count', async () => {
      const meta = { ...requestMeta(), extra: '@POISON@' };
      const served = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: meta } }).replace(
        '"extra":"@POISON@"',
        POISON.slice(1, -1),
      );
      expectResult(await mcpPost(catalog.mcpUrl, { method: 'tools/list', rawBody: served }), 'tools/list');
      const hidden = JSON.stringify({
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/list',
        params: { _meta: { __placeholder: 1 } },
      }).replace('"__placeholder":1', `"__proto__":${JSON.stringify(requestMeta())}`);
      expectError(await mcpPost(catalog.mcpUrl, { method: 'tools/list', rawBody: hidden }), 400, -32602);
    });

    it('in clientCapabilities: a capability under __proto__ is not declared (-32021, not input_required)', async () => {
      const rawBody = JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'confirmDelete', arguments: { target: 'proto' }, _meta: requestMeta({ [CAPS]: '@POISON@' }) },
      }).replace('"@POISON@"', POISON);
      const error = expectError(
        await mcpPost(elicit.mcpUrl, { method: 'tools/call', params: { name: 'confirmDelete' }, rawBody }),
        400,
        -32021,
      );
      expect(error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
      expect(elicitProbe.deleted).not.toContain('proto');
    });

    it('in inputResponses: an answer hidden under __proto__ is no answer; next to a real answer it is ignored', async () => {
      const call = (inputResponses: string, requestState?: string) =>
        mcpPost(elicit.mcpUrl, {
          method: 'tools/call',
          params: { name: 'confirmDelete' },
          rawBody: JSON.stringify({
            jsonrpc: '2.0',
            id: 10,
            method: 'tools/call',
            params: {
              name: 'confirmDelete',
              arguments: { target: 'p2' },
              requestState,
              inputResponses: '@IR@',
              _meta: requestMeta({ [CAPS]: FORM }),
            },
          }).replace('"@IR@"', inputResponses),
        });
      const round1 = expectResult<{ resultType: string; requestState: string }>(await call('{}'), 'tools/call');
      expect(round1.resultType).toBe('input_required');
      const hidden = expectResult<{ resultType: string; inputRequests: object }>(
        await call(`{"__proto__":{"confirm":${JSON.stringify(accept({ confirm: true }))}}}`, round1.requestState),
        'tools/call',
      );
      expect(hidden.resultType).toBe('input_required');
      expect(Object.keys(hidden.inputRequests)).toEqual(['confirm']);
      const done = expectResult<{ content: unknown }>(
        await call(
          `{"__proto__":{"polluted":"yes"},"confirm":${JSON.stringify(accept({ confirm: false }))}}`,
          round1.requestState,
        ),
        'tools/call',
      );
      expect(textOf(done)).toBe('kept');
    });

    it('a question asked under the key "constructor": no inherited answer; a real one completes', async () => {
      const call = (extra: Record<string, unknown>) =>
        mcpPost(hostile.mcpUrl, {
          method: 'tools/call',
          params: { name: 'askConstructor', arguments: {}, ...extra },
          meta: requestMeta({ [CAPS]: FORM }),
        });
      const round1 = expectResult<{ resultType: string; requestState: string; inputRequests: object }>(
        await call({}),
        'tools/call',
      );
      expect(round1.resultType).toBe('input_required');
      expect(Object.keys(round1.inputRequests)).toEqual(['constructor']);
      // No answer at all: Object.prototype.constructor must not be taken for one.
      const again = expectResult<{ resultType: string; inputRequests: object }>(
        await call({ requestState: round1.requestState, inputResponses: {} }),
        'tools/call',
      );
      expect(again.resultType).toBe('input_required');
      expect(Object.keys(again.inputRequests)).toEqual(['constructor']);
      const done = await call({
        requestState: round1.requestState,
        inputResponses: { constructor: accept({ ok: true }) },
      });
      expect(textOf(expectResult(done, 'tools/call'))).toBe('ok=true');
    });

    it('in prompt arguments and completion context: served normally', async () => {
      const prompt = body('prompts/get', { name: 'echoPrompt', arguments: { topic: 'cats' } }).replace(
        '"topic":"cats"',
        '"topic":"cats","__proto__":"x","constructor":"y"',
      );
      const result = expectResult<{ messages: unknown[] }>(
        await mcpPost(hostile.mcpUrl, { method: 'prompts/get', params: { name: 'echoPrompt' }, rawBody: prompt }),
        'prompts/get',
      );
      expect(result.messages).toHaveLength(1);
      expect(probe.promptArgs!.prototypeIsObject).toBe(true);
      const completion = body('completion/complete', {
        ref: { type: 'ref/prompt', name: 'describeFruit' },
        argument: { name: 'fruit', value: 'ap' },
        context: { arguments: { x: 1 } },
      }).replace('"x":1', POISON.slice(1, -1));
      const completed = expectResult<{ completion: { values: string[] } }>(
        await mcpPost(catalog.mcpUrl, { method: 'completion/complete', rawBody: completion }),
        'completion/complete',
      );
      expect(completed.completion.values).toEqual(['apple', 'apricot']);
    });

    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype'])(
      'a tool, prompt and resource named %s are unknown (-32602), not inherited',
      async (name) => {
        expectError(
          await mcpPost(catalog.mcpUrl, { method: 'tools/call', params: { name, arguments: {} } }),
          200,
          -32602,
        );
        expectError(await mcpPost(catalog.mcpUrl, { method: 'prompts/get', params: { name } }), 200, -32602);
        expectError(await mcpPost(catalog.mcpUrl, { method: 'resources/read', params: { uri: name } }), 200, -32602);
        await expectStillServing();
      },
    );

    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
      'a method named %s → 404 / -32601 (not an inherited property of a lookup table)',
      async (method) => {
        expectError(await mcpPost(catalog.mcpUrl, { method }), 404, -32601);
        await expectStillServing();
      },
    );
  });

  describe('unknown and removed methods (beyond the HTTP rule matrix)', () => {
    it.each([
      'notifications/initialized',
      'notifications/progress',
      'tasks/get',
      'tasks/list',
      'tasks/cancel',
      'sampling/createMessage',
      'elicitation/create',
      'roots/list',
      'resources/templates/read',
      'TOOLS/LIST',
      'rpc.discover',
      `tools/${'x'.repeat(10_000)}`,
    ])('%s as a request → 404 / -32601', async (method) => {
      expectError(await mcpPost(catalog.mcpUrl, { method }), 404, -32601);
      await expectStillServing();
    });

    it('a method with non-ASCII characters cannot be mirrored in Mcp-Method → 400 / -32020', async () => {
      expectError(await mcpPostViaHttp(catalog.mcpUrl, { method: 'tools/lïst' }), 400, -32020);
      await expectStillServing();
    });

    it('an unknown notification is accepted and ignored (202, empty body)', async () => {
      const response = await mcpPost(catalog.mcpUrl, { method: 'notifications/whatever', id: null });
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
      await expectStillServing();
    });
  });

  describe('Content-Type, Content-Encoding and Accept', () => {
    it.each([
      ['application/json; charset=utf-8', 200],
      ['Application/JSON', 200],
      ['application/json;charset=UTF-8;foo=bar', 200],
      ['application/json-rpc', 415],
      ['text/json', 415],
      ['application/x-www-form-urlencoded', 415],
      ['multipart/form-data; boundary=xyz', 415],
      ['application/json, text/plain', 415],
      ['', 415],
    ])('Content-Type %j → %i', async (contentType, status) => {
      const response = await mcpPost(catalog.mcpUrl, {
        method: 'tools/list',
        headers: { 'content-type': contentType },
      });
      if (status === 200) expectResult(response, 'tools/list');
      else expectError(response, status, -32600, 'either');
      await expectStillServing();
    });

    it('no Content-Type at all → 415 / -32600', async () => {
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(
          catalog.mcpUrl,
          Object.entries(mcpHeaders('tools/list'))
            .filter(([name]) => name !== 'content-type')
            .map(([name, value]) => `${name}: ${value}`),
          body('tools/list'),
        ),
      );
      expect(answer.status).toBe(415);
      expect(jsonOf(answer)?.error?.code).toBe(-32600);
      await expectStillServing();
    });

    it.each([
      ['gzip', 415],
      ['deflate, gzip', 415],
      ['identity', 200],
    ])('Content-Encoding %s → %i', async (encoding, status) => {
      const text = body('tools/list');
      const bytes = encoding === 'identity' ? Buffer.from(text) : gzipSync(text);
      const response = await fetch(catalog.mcpUrl, {
        method: 'POST',
        headers: { ...mcpHeaders('tools/list'), 'content-encoding': encoding },
        body: bytes,
      });
      const raw: RawResponse = {
        status: response.status,
        headers: response.headers,
        text: await response.text(),
        json: undefined,
        sentId: 7,
      };
      raw.json = JSON.parse(raw.text);
      if (status === 200) expectResult(raw, 'tools/list');
      else expectError(raw, 415, -32600, 'either');
      await expectStillServing();
    });

    it.each([
      ['*/*', 'application/json'],
      ['application/*', 'application/json'],
      ['text/*', 'text/event-stream'],
      ['application/json;q=0.5, text/event-stream;q=1', 'application/json'],
    ])('Accept %s → answered as %s', async (accept, contentType) => {
      const response = await mcpPost(catalog.mcpUrl, { method: 'tools/list', headers: { accept } });
      expectResult(response, 'tools/list');
      expect(response.headers.get('content-type')).toMatch(new RegExp(`^${contentType}`));
    });

    it.each([',,,;;;', 'image/png', 'application/jsonx', 'text/event-streams'])(
      'Accept %j → 406 / -32600',
      async (accept) => {
        expectError(await mcpPost(catalog.mcpUrl, { method: 'tools/list', headers: { accept } }), 406, -32600);
        await expectStillServing();
      },
    );
  });

  describe('missing, duplicated and conflicting headers', () => {
    const lines = (method: string, params: Record<string, unknown> = {}) =>
      Object.entries(mcpHeaders(method, params)).map(([name, value]) => `${name}: ${value}`);

    it.each([
      ['MCP-Protocol-Version twice, same value', 'mcp-protocol-version: 2026-07-28'],
      ['MCP-Protocol-Version twice, different values', 'mcp-protocol-version: 2025-11-25'],
      ['Mcp-Method twice, same value', 'mcp-method: tools/call'],
      ['Mcp-Method twice, different values', 'mcp-method: tools/list'],
      ['Mcp-Name twice, same value', 'mcp-name: add'],
      ['Mcp-Name twice, different values', 'mcp-name: echo'],
    ])('%s → 400 / -32020', async (_label, duplicate) => {
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(
          catalog.mcpUrl,
          [...lines('tools/call', { name: 'add' }), duplicate],
          body('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }),
        ),
      );
      expect(answer.status).toBe(400);
      const message = jsonOf(answer)!;
      assertValidServerMessage(message);
      expect(message.error?.code).toBe(-32020);
      expect(message.id).toBe(7);
      await expectStillServing();
    });

    it('two Host headers (RFC 9112: 400) → 400 / -32600, even when the first is allowed', async () => {
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(catalog.mcpUrl, [...lines('tools/list'), 'Host: evil.example.com'], body('tools/list')),
      );
      expect(answer.status).toBe(400);
      const message = jsonOf(answer);
      if (message) expect(message.error?.code).toBe(-32600);
      await expectStillServing();
    });

    it('no Host header (HTTP/1.0) on a loopback bind → 403 / -32600', async () => {
      const text = body('tools/list');
      const request = `POST ${catalog.mcpUrl.pathname} HTTP/1.0\r\n${lines('tools/list').join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
      const answer = await rawHttp(catalog.mcpUrl, request);
      expect(answer.status).toBe(403);
      expect(jsonOf(answer)?.error?.code).toBe(-32600);
      await expectStillServing();
    });

    it.each([
      [
        'two different Content-Length values',
        (text: string) => [`Content-Length: ${text.length}`, `Content-Length: ${text.length + 1}`],
      ],
      [
        'Content-Length and Transfer-Encoding (request smuggling)',
        (text: string) => [`Content-Length: ${text.length}`, 'Transfer-Encoding: chunked'],
      ],
      [
        'an unknown Transfer-Encoding',
        (text: string) => [`Content-Length: ${text.length}`, 'Transfer-Encoding: rot13'],
      ],
    ])('%s → 400 from Node (the application never sees it), server keeps serving', async (_label, framing) => {
      const text = body('tools/list');
      const request = `POST ${catalog.mcpUrl.pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines('tools/list').join('\r\n')}\r\n${framing(text).join('\r\n')}\r\n\r\n${text}`;
      const answer = await rawHttp(catalog.mcpUrl, request);
      expect(answer.status).toBe(400);
      await expectStillServing();
    });

    it('two Content-Type headers: the first one counts (Node keeps the first)', async () => {
      const jsonFirst = await rawHttp(
        catalog.mcpUrl,
        rawPost(catalog.mcpUrl, [...lines('tools/list'), 'Content-Type: text/plain'], body('tools/list')),
      );
      expect(jsonFirst.status).toBe(200);
      const withoutType = lines('tools/list').filter((line) => !line.startsWith('content-type'));
      const textFirst = await rawHttp(
        catalog.mcpUrl,
        rawPost(
          catalog.mcpUrl,
          ['Content-Type: text/plain', 'Content-Type: application/json', ...withoutType],
          body('tools/list'),
        ),
      );
      expect(textFirst.status).toBe(415);
      await expectStillServing();
    });

    it.each(['null', 'not a url', 'file://', 'http://127.0.0.1.evil.example.com', 'http://localhost@evil.example.com'])(
      'Origin %j on a loopback bind → 403 / -32600',
      async (origin) => {
        expectError(
          await mcpPost(catalog.mcpUrl, { method: 'tools/list', headers: { origin } }),
          403,
          -32600,
          'either',
        );
        await expectStillServing();
      },
    );

    it('Mcp-Name on a method that has no name is ignored', async () => {
      expectResult(
        await mcpPost(catalog.mcpUrl, { method: 'tools/list', headers: { 'mcp-name': 'anything' } }),
        'tools/list',
      );
    });
  });

  describe('non-ASCII and oversized header values', () => {
    const lines = (method: string, params: Record<string, unknown> = {}) =>
      Object.entries(mcpHeaders(method, params)).map(([name, value]) => `${name}: ${value}`);

    it('a 64 KB header → 431 from Node, server keeps serving', async () => {
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(catalog.mcpUrl, [...lines('tools/list'), `X-Big: ${'a'.repeat(64 * 1024)}`], body('tools/list')),
      );
      expect(answer.status).toBe(431);
      await expectStillServing();
    });

    it('a 64 KB Mcp-Name → 431 from Node, server keeps serving', async () => {
      const name = 'n'.repeat(64 * 1024);
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(catalog.mcpUrl, lines('tools/call', { name }), body('tools/call', { name })),
      );
      expect(answer.status).toBe(431);
      await expectStillServing();
    });

    it('a 10 KB protocol version in header and _meta → 400 / -32022 naming it (cut to 8 KiB, #24)', async () => {
      const version = 'v'.repeat(10 * 1024);
      const error = expectError(
        await mcpPost(catalog.mcpUrl, {
          method: 'tools/list',
          meta: requestMeta({ 'io.modelcontextprotocol/protocolVersion': version }),
          headers: { 'mcp-protocol-version': version },
        }),
        400,
        -32022,
      );
      expect((error.data as { requested: string }).requested).toBe(
        `${version.slice(0, 8192)}… (${version.length} characters)`,
      );
    });

    it.each([
      ['MCP-Protocol-Version', 'mcp-protocol-version: 2026-07-28\u00e9'],
      ['Mcp-Method', 'mcp-method: tools/list\u00e9'],
    ])('obs-text (Latin-1) in %s → 400 / -32020', async (_label, line) => {
      const name = line.split(':')[0];
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(catalog.mcpUrl, [...lines('tools/list').filter((l) => !l.startsWith(name)), line], body('tools/list')),
      );
      expect(answer.status).toBe(400);
      expect(jsonOf(answer)?.error?.code).toBe(-32020);
      await expectStillServing();
    });

    it('UTF-8 bytes in an unrelated header are ignored', async () => {
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(
          catalog.mcpUrl,
          [...lines('tools/list'), `X-Note: ${Buffer.from('grüße', 'utf8').toString('latin1')}`],
          body('tools/list'),
        ),
      );
      expect(answer.status).toBe(200);
    });

    it.each([
      ['a control character', 'X-Ctl: a\u0001b'],
      ['a bare CR', 'X-Ctl: a\rb'],
      ['a NUL', 'X-Ctl: a\u0000b'],
      ['a space in the name', 'X Ctl: a'],
    ])('%s in a header → 400 from Node, server keeps serving', async (_label, line) => {
      const answer = await rawHttp(
        catalog.mcpUrl,
        rawPost(catalog.mcpUrl, [...lines('tools/list'), line], body('tools/list')),
      );
      expect(answer.status).toBe(400);
      await expectStillServing();
    });
  });

  describe('bad cursors', () => {
    const tools = (offset: string) => Buffer.from(`tools:${offset}`).toString('base64url');

    it.each<[string, unknown]>([
      ['a number', 42],
      ['null', null],
      ['an object', { offset: 4 }],
      ['an array', ['tools:4']],
      ['true', true],
      ['an empty string', ''],
      ['10,000 characters', 'c'.repeat(10_000)],
      ['a NUL', '\u0000'],
      ['only non-base64url characters', 'ü€!'],
      ['a negative offset', tools('-4')],
      ['an exponent', tools('4e0')],
      ['ten digits', tools('0000000004')],
      ['a fractional offset', tools('4.0')],
      ['an offset past the end', tools('400000')],
    ])('tools/list with a cursor that is %s → 200 / -32602', async (_label, cursor) => {
      expectError(await mcpPost(catalog.mcpUrl, { method: 'tools/list', params: { cursor } }), 200, -32602);
      await expectStillServing();
    });

    it.each(['prompts/list', 'resources/list', 'resources/templates/list'])(
      '%s with a cursor of tools/list → 200 / -32602',
      async (method) => {
        expectError(await mcpPost(catalog.mcpUrl, { method, params: { cursor: tools('4') } }), 200, -32602);
        expectError(await mcpPost(catalog.mcpUrl, { method, params: { cursor: 'garbage' } }), 200, -32602);
      },
    );
  });

  describe('bad URIs and URI templates', () => {
    const read = (uri: string, headers: Record<string, string> = {}) =>
      mcpPost(hostile.mcpUrl, { method: 'resources/read', params: { uri }, headers });
    const readEncoded = (uri: string) => read(uri, { 'mcp-name': base64Sentinel(uri) });

    it('a 10,000-character URI → -32602 resource not found (over the 8192 matching bound, and cut to it in data.uri), the handler never runs', async () => {
      const before = probe.templateValues.length;
      const uri = `files://${'a'.repeat(10_000)}`;
      const error = expectError(await read(uri), 200, -32602);
      expect(error.data).toEqual({ uri: `${uri.slice(0, 8192)}… (${uri.length} characters)` });
      expect(probe.templateValues.length).toBe(before);
      await expectStillServing(hostile.mcpUrl);
    });

    it('a 7,000-character variable within the bound is matched and served', async () => {
      const name = 'a'.repeat(7_000);
      expectResult(await read(`files://${name}`), 'resources/read');
      expect(probe.templateValues.at(-1)).toEqual({ template: 'files://{name}', value: name });
    });

    it.each([
      ['a raw control character', 'files://a\u0001b'],
      ['a raw NUL', 'files://a\u0000b'],
      ['a raw newline', 'files://a\nb'],
      ['a raw space', 'files://a b'],
      ['a raw non-ASCII character (an IRI, not a URI: the schema says format "uri")', 'files://café'],
      ['an invalid percent-escape', 'files://%ZZ'],
      ['a lone percent sign', 'files://abc%'],
      ['an overlong UTF-8 encoding of "/"', 'files://%C0%AF'],
      ['a percent-encoded lone surrogate', 'files://%ED%A0%80'],
    ])(
      '%s → -32602; the handler never runs (echoing it would break the schema\'s format "uri")',
      async (_label, uri) => {
        const before = probe.templateValues.length;
        // Resource not found (data.uri) or an invalid-URI message: either way -32602, and nothing reaches the handler.
        expectError(await readEncoded(uri), 200, -32602);
        expect(probe.templateValues.length).toBe(before);
      },
    );

    it('a percent-encoded NUL is a valid escape: the handler gets the decoded character (handlers must validate)', async () => {
      expectResult(await read('files://a%00b'), 'resources/read');
      expect(probe.templateValues.at(-1)).toEqual({ template: 'files://{name}', value: 'a\u0000b' });
    });

    it('"../" in a single-segment variable does not match; encoded, it reaches the handler decoded (handlers must validate)', async () => {
      const before = probe.templateValues.length;
      expectError(await read('files://../../etc/passwd'), 200, -32602);
      expect(probe.templateValues.length).toBe(before);
      expectResult(await read('files://..%2F..%2Fetc%2Fpasswd'), 'resources/read');
      expect(probe.templateValues.at(-1)).toEqual({ template: 'files://{name}', value: '../../etc/passwd' });
      expectResult(await read('files://..'), 'resources/read');
      expect(probe.templateValues.at(-1)).toEqual({ template: 'files://{name}', value: '..' });
    });

    it('a reserved expansion ({+path}) passes "/" and ".." through as they are', async () => {
      expectResult(await read('tree://../../etc/passwd'), 'resources/read');
      expect(probe.templateValues.at(-1)).toEqual({ template: 'tree://{+path}', value: '../../etc/passwd' });
    });

    it.each<[string, unknown]>([
      ['an empty string', ''],
      ['a number (with a mirrored Mcp-Name)', 42],
      ['an object (with a mirrored Mcp-Name)', { href: 'files://x' }],
    ])('a uri that is %s → 200 / -32602', async (_label, uri) => {
      const headers = typeof uri === 'string' ? {} : { 'mcp-name': JSON.stringify(uri) };
      expectError(
        await mcpPost(hostile.mcpUrl, { method: 'resources/read', params: { uri: uri as string }, headers }),
        200,
        -32602,
      );
      await expectStillServing(hostile.mcpUrl);
    });

    it('completion for a 10,000-character resource URI → 200 / -32602', async () => {
      expectError(
        await mcpPost(catalog.mcpUrl, {
          method: 'completion/complete',
          params: {
            ref: { type: 'ref/resource', uri: `catalog://${'x'.repeat(10_000)}` },
            argument: { name: 'sku', value: 'a' },
          },
        }),
        200,
        -32602,
      );
    });
  });

  describe('tool arguments of every wrong shape', () => {
    const call = (name: string, args: unknown) =>
      mcpPost(hostile.mcpUrl, { method: 'tools/call', params: { name, arguments: args as Record<string, unknown> } });

    it.each<[string, unknown]>([
      ['the required property missing', {}],
      ['the required property null', { label: null }],
      ['a number for a string', { label: 5 }],
      ['an object for a string', { label: { toString: 'x' } }],
      ['an array for a string', { label: ['x'] }],
      ['a string over maxLength', { label: 'x'.repeat(33) }],
      ['a float for an integer', { label: 'x', count: 1.5 }],
      ['a numeric string for an integer', { label: 'x', count: '5' }],
      ['an integer out of range', { label: 'x', count: 11 }],
      ['a boolean for an integer', { label: 'x', count: true }],
      ['an extra property', { label: 'x', extra: 1 }],
    ])('strict tool, %s → isError naming the problem; the handler never runs', async (_label, args) => {
      const result = expectResult<{ isError?: boolean; content: unknown }>(await call('strict', args), 'tools/call');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Invalid arguments for tool "strict": /);
    });

    it.each<[string, unknown]>([
      ['a string for the lines array', { customer: 'c', lines: 'apple' }],
      ['strings in the lines array', { customer: 'c', lines: ['apple'] }],
      ['a line with a huge quantity', { customer: 'c', lines: [{ sku: 'apple', quantity: 1e21 }] }],
      ['a line with a negative quantity', { customer: 'c', lines: [{ sku: 'apple', quantity: -1 }] }],
      ['an unknown shipping value', { customer: 'c', lines: [], shipping: 'teleport' }],
      ['the customer as an object', { customer: { name: 'c' }, lines: [] }],
    ])('DTO tool, %s → isError', async (_label, args) => {
      const response = await mcpPost(catalog.mcpUrl, {
        method: 'tools/call',
        params: { name: 'placeOrder', arguments: args as Record<string, unknown> },
      });
      const result = expectResult<{ isError?: boolean; content: unknown }>(response, 'tools/call');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Invalid arguments for tool "placeOrder": /);
    });

    it('a tool without input schema given arguments → isError naming them', async () => {
      const result = expectResult<{ isError?: boolean; content: unknown }>(
        await mcpPost(catalog.mcpUrl, {
          method: 'tools/call',
          params: { name: 'outOfStock', arguments: { surprise: 1 } },
        }),
        'tools/call',
      );
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/surprise/);
    });

    it.each<[string, unknown]>([
      ['a number', 5],
      ['an object', { text: 'x' }],
      ['null', null],
    ])('a prompt argument that is %s → 200 / -32602', async (_label, value) => {
      expectError(
        await mcpPost(catalog.mcpUrl, {
          method: 'prompts/get',
          params: { name: 'describeFruit', arguments: { fruit: value } },
        }),
        200,
        -32602,
      );
    });

    it.each<[string, Record<string, unknown>]>([
      ['no ref', { argument: { name: 'fruit', value: 'a' } }],
      ['ref as a string', { ref: 'ref/prompt', argument: { name: 'fruit', value: 'a' } }],
      ['an unknown ref type', { ref: { type: 'ref/tool', name: 'add' }, argument: { name: 'fruit', value: 'a' } }],
      ['no argument', { ref: { type: 'ref/prompt', name: 'describeFruit' } }],
      [
        'a numeric value',
        { ref: { type: 'ref/prompt', name: 'describeFruit' }, argument: { name: 'fruit', value: 1 } },
      ],
      [
        'an unknown argument',
        { ref: { type: 'ref/prompt', name: 'describeFruit' }, argument: { name: 'colour', value: 'a' } },
      ],
      [
        'context.arguments as an array',
        {
          ref: { type: 'ref/prompt', name: 'describeFruit' },
          argument: { name: 'fruit', value: 'a' },
          context: { arguments: ['x'] },
        },
      ],
    ])('completion/complete with %s → 200 / -32602', async (_label, params) => {
      expectError(await mcpPost(catalog.mcpUrl, { method: 'completion/complete', params }), 200, -32602);
    });
  });

  describe('invalid elicitation answers (beyond the elicitation suite)', () => {
    async function firstRound(name: string, capabilities: Record<string, unknown>, args: Record<string, unknown> = {}) {
      const response = await mcpPost(elicit.mcpUrl, {
        method: 'tools/call',
        params: { name, arguments: args },
        meta: requestMeta({ [CAPS]: capabilities }),
      });
      const result = expectResult<{ resultType: string; requestState: string }>(response, 'tools/call');
      expect(result.resultType).toBe('input_required');
      return result.requestState;
    }
    const retry = (
      name: string,
      capabilities: Record<string, unknown>,
      requestState: string,
      inputResponses: unknown,
      args: Record<string, unknown> = {},
    ) =>
      mcpPost(elicit.mcpUrl, {
        method: 'tools/call',
        params: { name, arguments: args, requestState, inputResponses: inputResponses as Record<string, unknown> },
        meta: requestMeta({ [CAPS]: capabilities }),
      });

    it('form content with properties the form does not have never reaches the handler (asked again, or stripped)', async () => {
      const call = (extra: Record<string, unknown>) =>
        mcpPost(hostile.mcpUrl, {
          method: 'tools/call',
          params: { name: 'askProfile', arguments: {}, ...extra },
          meta: requestMeta({ [CAPS]: FORM }),
        });
      const round1 = expectResult<{ requestState: string }>(await call({}), 'tools/call');
      probe.profile = undefined;
      const answer = accept({ nickname: 'neo', admin: true });
      const outcome = expectResult<{ resultType: string }>(
        await mcpPost(hostile.mcpUrl, {
          method: 'tools/call',
          params: { name: 'askProfile' },
          rawBody: JSON.stringify({
            jsonrpc: '2.0',
            id: 11,
            method: 'tools/call',
            params: {
              name: 'askProfile',
              arguments: {},
              requestState: round1.requestState,
              inputResponses: { profile: '@A@' },
              _meta: requestMeta({ [CAPS]: FORM }),
            },
          }).replace('"@A@"', JSON.stringify(answer).replace('}}', ',"__proto__":{"polluted":"yes"}}}')),
        }),
        'tools/call',
      );
      if (outcome.resultType === 'complete') expect(Object.keys(probe.profile ?? {})).toEqual(['nickname']);
      else expect(outcome.resultType).toBe('input_required');
    });

    it.each<[string, unknown]>([
      ['content as a string', { role: 'assistant', content: 'x', model: 'm' }],
      ['an unknown content type', { role: 'assistant', content: { type: 'video', text: 'x' }, model: 'm' }],
      ['a numeric model', { role: 'assistant', content: { type: 'text', text: 'x' }, model: 7 }],
    ])('a sampling answer with %s → 200 / -32602', async (_label, answer) => {
      const state = await firstRound('haiku', { sampling: {} });
      expectError(await retry('haiku', { sampling: {} }, state, { draft: answer }), 200, -32602);
    });

    it.each<[string, unknown]>([
      ['roots as an object', { roots: { uri: 'file:///x' } }],
      ['a root without uri', { roots: [{ name: 'x' }] }],
      ['a root uri that is not a string', { roots: [{ uri: 5 }] }],
      ['no roots', {}],
    ])('a roots answer with %s → 200 / -32602', async (_label, answer) => {
      const state = await firstRound('listRoots', { roots: {} });
      expectError(await retry('listRoots', { roots: {} }, state, { roots: answer }), 200, -32602);
    });

    it('10,000 unrelated answer keys next to the real one are ignored', async () => {
      const state = await firstRound('confirmDelete', FORM, { target: 'many' });
      const responses: Record<string, unknown> = { confirm: accept({ confirm: false }) };
      for (let index = 0; index < 10_000; index++) responses[`k${index}`] = { action: 'accept', content: { index } };
      expect(
        textOf(expectResult(await retry('confirmDelete', FORM, state, responses, { target: 'many' }), 'tools/call')),
      ).toBe('kept');
    });

    it('an answer without requestState is taken as given (documented: states carry answers, they do not gate them)', async () => {
      const response = await mcpPost(elicit.mcpUrl, {
        method: 'tools/call',
        params: {
          name: 'confirmDelete',
          arguments: { target: 'unasked' },
          inputResponses: { confirm: accept({ confirm: false }) },
        },
        meta: requestMeta({ [CAPS]: FORM }),
      });
      expect(textOf(expectResult(response, 'tools/call'))).toBe('kept');
    });
  });

  describe('forged, truncated, replayed, expired and cross-caller requestState (beyond the elicitation suite)', () => {
    const keyId = createHash('sha256').update(Buffer.from(TEST_STATE_KEY, 'base64')).digest().subarray(0, 4);
    const call = (
      requestState: unknown,
      options: { user?: string; method?: string; name?: string; args?: Record<string, unknown> } = {},
    ) => {
      const method = options.method ?? 'tools/call';
      const params: Record<string, unknown> =
        method === 'resources/read'
          ? { uri: options.name ?? 'secret://note' }
          : { name: options.name ?? 'confirmDelete', arguments: options.args ?? { target: 'st' } };
      return mcpPost(elicit.mcpUrl, {
        method,
        params: {
          ...params,
          requestState,
          inputResponses: { confirm: accept({ confirm: true }), name: accept({ name: 'Eve' }) },
        },
        meta: requestMeta({ [CAPS]: FORM }),
        headers: options.user ? { 'x-user': options.user } : undefined,
      });
    };
    const codec = () => elicit.app.get(RequestStateCodec);

    async function realState(user?: string): Promise<string> {
      const response = await mcpPost(elicit.mcpUrl, {
        method: 'tools/call',
        params: { name: 'confirmDelete', arguments: { target: 'st' } },
        meta: requestMeta({ [CAPS]: FORM }),
        headers: user ? { 'x-user': user } : undefined,
      });
      return expectResult<{ requestState: string }>(response, 'tools/call').requestState;
    }

    it.each<[string, () => string, RegExp]>([
      ['random bytes after "v1."', () => `v1.${randomBytes(80).toString('base64url')}`, /not issued by this server/],
      [
        'our key id with random bytes',
        () => `v1.${Buffer.concat([keyId, randomBytes(80)]).toString('base64url')}`,
        /integrity check failed/,
      ],
      ['our key id and nothing else', () => `v1.${keyId.toString('base64url')}`, /malformed/],
      ['over 256 KiB', () => `v1.${'A'.repeat(256 * 1024)}`, /malformed/],
      ['characters outside base64url', () => `v1.${'=+/'.repeat(40)}`, /requestState/],
      ['a JWT-looking value', () => 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.', /malformed/],
    ])('forged: %s → 200 / -32602; the handler never runs', async (_label, forge, reason) => {
      elicitProbe.runs.clear();
      const error = expectError(await call(forge()), 200, -32602);
      expect(error.message).toMatch(reason);
      expect(elicitProbe.runs.get('confirmDelete') ?? 0).toBe(0);
    });

    it.each<[string, unknown, RegExp]>([
      ['a JSON string', 'just a string', /malformed/],
      ['an array', [1, 2], /malformed/],
      [
        'answers that are not an object',
        { m: 'tools/call', t: 'confirmDelete', d: 'x', a: [], p: [], iat: Date.now() },
        /malformed/,
      ],
      [
        'asked keys that are not an array',
        { m: 'tools/call', t: 'confirmDelete', d: 'x', a: {}, p: 'confirm', iat: Date.now() },
        /malformed/,
      ],
      [
        'an issue time that is a string',
        { m: 'tools/call', t: 'confirmDelete', d: 'x', a: {}, p: [], iat: 'now' },
        /malformed/,
      ],
    ])('sealed with the server key but %s → 200 / -32602', async (_label, sealed, reason) => {
      const error = expectError(await call(codec().seal(sealed as object)), 200, -32602);
      expect(error.message).toMatch(reason);
    });

    it('sealed with the server key, dated two minutes in the future → -32602 expired', async () => {
      const real = codec().open(await realState()) as Record<string, unknown>;
      const error = expectError(await call(codec().seal({ ...real, iat: Date.now() + 120_000 })), 200, -32602);
      expect(error.message).toMatch(/expired/);
    });

    it('sealed with the server key, with __proto__ among the carried answers: no pollution, no inherited answer', async () => {
      const real = codec().open(await realState()) as Record<string, unknown>;
      const answers = JSON.parse(
        '{"__proto__":{"polluted":"yes","confirm":{"action":"accept","content":{"confirm":true}}}}',
      ) as Record<string, unknown>;
      const state = codec().seal({ ...real, a: answers, p: [] });
      const response = await mcpPost(elicit.mcpUrl, {
        method: 'tools/call',
        params: { name: 'confirmDelete', arguments: { target: 'st' }, requestState: state },
        meta: requestMeta({ [CAPS]: FORM }),
      });
      const result = expectResult<{ resultType: string }>(response, 'tools/call');
      expect(result.resultType).toBe('input_required');
      expect(elicitProbe.deleted).not.toContain('st');
    });

    it('truncated to its prefix, or with a byte appended → -32602', async () => {
      const state = await realState();
      for (const broken of ['v1.', 'v1', `${state}A`, `${state}AAAA`, ` ${state}`]) {
        expectError(await call(broken), 200, -32602);
      }
    });

    it('a tool state replayed on a resource read, and on the same tool with other arguments → -32602', async () => {
      const state = await realState();
      expect(
        expectError(await call(state, { method: 'resources/read', name: 'secret://note' }), 200, -32602).message,
      ).toMatch(/another request/);
      expect(expectError(await call(state, { args: { target: 'st', force: true } }), 200, -32602).message).toMatch(
        /another request/,
      );
    });

    it('a principal differing only in case is another caller → -32602', async () => {
      const state = await realState('alice');
      expect(expectError(await call(state, { user: 'Alice' }), 200, -32602).message).toMatch(/another caller/);
    });

    it('a garbage requestState on a tool that never elicits → -32602 (every MRTR method verifies it)', async () => {
      expectError(
        await mcpPost(elicit.mcpUrl, {
          method: 'tools/call',
          params: { name: 'plainTool', arguments: {}, requestState: 'garbage' },
        }),
        200,
        -32602,
      );
    });

    it('a garbage requestState on a method without round trips (tools/list) is ignored', async () => {
      expectResult(
        await mcpPost(elicit.mcpUrl, {
          method: 'tools/list',
          params: { requestState: 'garbage', inputResponses: { x: 1 } },
        }),
        'tools/list',
      );
    });

    it('the same final round sent twice runs twice (states are not single-use; see docs/security.md)', async () => {
      const state = await realState();
      elicitProbe.runs.clear();
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await mcpPost(elicit.mcpUrl, {
          method: 'tools/call',
          params: {
            name: 'confirmDelete',
            arguments: { target: 'st' },
            requestState: state,
            inputResponses: { confirm: accept({ confirm: false }) },
          },
          meta: requestMeta({ [CAPS]: FORM }),
        });
        expect(textOf(expectResult(response, 'tools/call'))).toBe('kept');
      }
      expect(elicitProbe.runs.get('confirmDelete')).toBe(2);
    });
  });

  describe('progress tokens of odd types (beyond the progress suite)', () => {
    const ticks = (progressToken: unknown) =>
      mcpPost(hostile.mcpUrl, {
        method: 'tools/call',
        params: { name: 'ticks', arguments: {} },
        meta: requestMeta({ progressToken }),
      });

    it.each<[string, unknown]>([
      ['an array', ['t']],
      ['a nested object', { a: { b: 1 } }],
      ['a negative float', -0.5],
      ['a tiny float', 1e-7],
      ['an empty array', []],
    ])('%s → 400 / -32602', async (_label, token) => {
      expectError(await ticks(token), 400, -32602);
      await expectStillServing(hostile.mcpUrl);
    });

    it.each<[string, unknown]>([
      ['a negative integer', -5],
      ['a huge integer (1e300)', 1e300],
      ['2^53 + 2', 2 ** 53 + 2],
      ['a string with control characters and unicode', 'tok\u0000\u001f\u2028€😀'],
      ['a string that looks like a number', '42'],
    ])('%s is a valid token, echoed exactly on every progress notification', async (_label, token) => {
      const messages = messagesOf(await ticks(token), 'tools/call');
      expect(messages.map((m) => m.method ?? 'response')).toEqual([
        'notifications/progress',
        'notifications/progress',
        'response',
      ]);
      for (const message of messages.slice(0, 2)) expect(message.params?.progressToken).toBe(token);
    });
  });

  it('a client that drops the connection in the middle of sending its body: no crash, the server keeps serving', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const socket = connect(Number(catalog.mcpUrl.port), catalog.mcpUrl.hostname);
      socket.on('error', () => undefined);
      const head = rawPost(
        catalog.mcpUrl,
        Object.entries(mcpHeaders('tools/list')).map(([name, value]) => `${name}: ${value}`),
        body('tools/list'),
      );
      socket.write(head.subarray(0, head.length - 20));
      await new Promise((resolve) => setTimeout(resolve, 10));
      socket.destroy();
    }
    await expectStillServing();
  });

  it('nothing was polluted across the whole suite', () => {
    expectNoPollution();
  });
});
