import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpDefinitionError, McpRegistry } from 'nest-mcp';
import { brokenToolModule, DEPLOY_SCHEMA, ParamHeadersModule } from '../fixtures/param-headers.fixture.js';
import { ADAPTERS, startApp, type AdapterName, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import {
  base64Sentinel,
  mcpPost,
  mcpPostViaHttp,
  type RawPost,
  type RawResponse,
} from '../support/raw-request.util.js';
import { assertAllValid, assertValidServerMessage, recordingFetch } from '../support/wire-schema.validator.js';

/**
 * `Mcp-Param-*` headers (spec 2026-07-28: basic/transports/streamable-http, "Custom Headers from Tool Parameters") over
 * real HTTP: the body is the source of truth, a value needs its header (equal after Base64 decoding, integers compared
 * numerically), a null or absent argument must come without one, recognised headers with bad characters are rejected
 * and unrecognised ones ignored. Then the official client sending the headers itself, and the annotations that must
 * fail bootstrap.
 */

const FULL_ARGS = { region: 'us-west', count: 42, dry: true, target: { zone: 'z-1' }, note: 'n' };
const FULL_HEADERS = {
  'mcp-param-region': 'us-west',
  'mcp-param-count': '42',
  'mcp-param-dry': 'true',
  'mcp-param-zone': 'z-1',
};

interface TextBlock {
  type: string;
  text: string;
}

/** Calls `deploy` with `args` and exactly `headers` as the Mcp-Param-* headers. */
function callDeploy(
  url: URL,
  args: Record<string, unknown>,
  headers: Record<string, string | undefined>,
  via: 'fetch' | 'http' = 'fetch',
) {
  const call: RawPost = { method: 'tools/call', params: { name: 'deploy', arguments: args }, headers };
  return via === 'fetch' ? mcpPost(url, call) : mcpPostViaHttp(url, call);
}

/** A successful call: 200, schema-valid, and the handler saw exactly the body's arguments. */
function expectCalled(response: RawResponse, args: Record<string, unknown>): void {
  expect(response.status, response.text).toBe(200);
  assertValidServerMessage(response.json, 'tools/call');
  const result = (response.json as { result: { content: TextBlock[]; isError?: boolean } }).result;
  expect(result.isError, response.text).toBeUndefined();
  expect(JSON.parse(result.content[0].text)).toEqual(args);
}

/** A header problem: 400, -32020, schema-valid, id echoed; returns the message. */
function expectMismatch(response: RawResponse, mentions?: RegExp): string {
  expect(response.status, response.text).toBe(400);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  assertValidServerMessage(response.json);
  const body = response.json as { id: unknown; error: { code: number; message: string } };
  expect(body.id).toBe(response.sentId);
  expect(body.error.code).toBe(-32020);
  if (mentions) expect(body.error.message).toMatch(mentions);
  return body.error.message;
}

describe.each(ADAPTERS)('Mcp-Param-* headers (%s)', (adapter) => {
  let running: RunningApp;
  let url: URL;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [ParamHeadersModule] });
    url = running.mcpUrl;
  });
  afterAll(async () => {
    await running?.close();
  });

  it('tools/list shows the x-mcp-header annotations verbatim', async () => {
    const response = await mcpPost(url, { method: 'tools/list' });
    assertValidServerMessage(response.json, 'tools/list');
    const tools = (response.json as { result: { tools: Array<{ name: string; inputSchema: unknown }> } }).result.tools;
    expect(tools.find((tool) => tool.name === 'deploy')?.inputSchema).toStrictEqual(DEPLOY_SCHEMA);
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Server Behavior for Custom Headers"
  describe('the body is the source of truth', () => {
    it('matching headers for every present value → 200', async () => {
      expectCalled(await callDeploy(url, FULL_ARGS, FULL_HEADERS), FULL_ARGS);
    });

    it('header names are case-insensitive', async () => {
      const response = await callDeploy(url, { region: 'us-west' }, { 'MCP-PARAM-REGION': 'us-west' });
      expectCalled(response, { region: 'us-west' });
    });

    it('no annotated argument, no header → 200', async () => {
      expectCalled(await callDeploy(url, { note: 'only a note' }, {}), { note: 'only a note' });
    });

    it('a nested object without the annotated property needs no header', async () => {
      expectCalled(await callDeploy(url, { target: {} }, {}), { target: {} });
    });

    it.each([
      ['Region', { ...FULL_HEADERS, 'mcp-param-region': undefined }],
      ['Count', { ...FULL_HEADERS, 'mcp-param-count': undefined }],
      ['Dry', { ...FULL_HEADERS, 'mcp-param-dry': undefined }],
      ['Zone', { ...FULL_HEADERS, 'mcp-param-zone': undefined }],
    ])('a present value without its header (Mcp-Param-%s) → 400 / -32020', async (name, headers) => {
      expectMismatch(await callDeploy(url, FULL_ARGS, headers), new RegExp(`Mcp-Param-${name}`));
    });

    it('a present value false (boolean) or 0 (integer) or "" (string) still needs its header', async () => {
      expectMismatch(await callDeploy(url, { dry: false }, {}), /Mcp-Param-Dry/);
      expectMismatch(await callDeploy(url, { count: 0 }, {}), /Mcp-Param-Count/);
      expectMismatch(await callDeploy(url, { region: '' }, {}), /Mcp-Param-Region/);
    });

    it.each([
      ['Region', { region: 'us-west' }, { 'mcp-param-region': 'eu-west' }],
      ['Region (values are case-sensitive)', { region: 'us-west' }, { 'mcp-param-region': 'US-WEST' }],
      ['Count', { count: 42 }, { 'mcp-param-count': '43' }],
      ['Dry', { dry: true }, { 'mcp-param-dry': 'false' }],
      ['Dry (only lower-case true/false)', { dry: true }, { 'mcp-param-dry': 'True' }],
      ['Dry (not 1)', { dry: true }, { 'mcp-param-dry': '1' }],
      ['Zone', { target: { zone: 'z-1' } }, { 'mcp-param-zone': 'z-2' }],
    ])('a mismatching %s header → 400 / -32020', async (_name, args, headers) => {
      expectMismatch(await callDeploy(url, args, headers), /does not match/);
    });

    it.each([
      ['absent', { note: 'x' }, { 'mcp-param-region': 'us-west' }],
      ['null', { region: null }, { 'mcp-param-region': 'us-west' }],
      ['absent (empty header)', { note: 'x' }, { 'mcp-param-count': '' }],
      ['absent (nested parent missing)', { note: 'x' }, { 'mcp-param-zone': 'z-1' }],
      ['null (nested parent null)', { target: null }, { 'mcp-param-zone': 'z-1' }],
    ])('a header while the argument is %s → 400 / -32020', async (_label, args, headers) => {
      expectMismatch(await callDeploy(url, args, headers), /no value/);
    });

    it('a null argument without a header is not a header problem (the arguments are then judged by inputSchema)', async () => {
      const response = await callDeploy(url, { region: null }, {});
      expect(response.status, response.text).toBe(200);
      assertValidServerMessage(response.json, 'tools/call');
      // The schema says string, so the tool answers with an isError result (invalidToolArguments: 'result').
      expect((response.json as { result: { isError?: boolean } }).result.isError).toBe(true);
    });

    it('validates before the handler runs, and the server keeps serving afterwards', async () => {
      expectMismatch(await callDeploy(url, FULL_ARGS, {}));
      expectCalled(await callDeploy(url, FULL_ARGS, FULL_HEADERS), FULL_ARGS);
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Server Validation"
  describe('integers are compared numerically', () => {
    it.each(['42', '42.0', '42.000', '042'])('Count: %s matches 42', async (header) => {
      expectCalled(await callDeploy(url, { count: 42 }, { 'mcp-param-count': header }), { count: 42 });
    });

    it.each(['-7', '-7.0'])('Count: %s matches -7', async (header) => {
      expectCalled(await callDeploy(url, { count: -7 }, { 'mcp-param-count': header }), { count: -7 });
    });

    it.each(['4.2e1', '+42', '0x2A', '42.5', '42.', '.42', 'forty-two'])(
      'Count: %s does not match 42',
      async (header) => {
        expectMismatch(await callDeploy(url, { count: 42 }, { 'mcp-param-count': header }), /Mcp-Param-Count/);
      },
    );
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Value Encoding"
  describe('Base64 sentinel values are decoded', () => {
    it('a non-ASCII string travels as =?base64?…?= and matches after decoding', async () => {
      const args = { region: 'Zürich – 東京', target: { zone: ' padded ' } };
      const headers = {
        'mcp-param-region': base64Sentinel('Zürich – 東京'),
        'mcp-param-zone': base64Sentinel(' padded '),
      };
      expect(headers['mcp-param-region']).toBe('=?base64?WsO8cmljaCDigJMg5p2x5Lqs?=');
      expectCalled(await callDeploy(url, args, headers), args);
    });

    it('a value that itself looks like the sentinel is sent encoded, and decodes to itself', async () => {
      const literal = '=?base64?abc?=';
      expectCalled(await callDeploy(url, { region: literal }, { 'mcp-param-region': base64Sentinel(literal) }), {
        region: literal,
      });
    });

    it('plain ASCII may also be sent encoded; integers and booleans too', async () => {
      const headers = {
        'mcp-param-region': base64Sentinel('us-west'),
        'mcp-param-count': base64Sentinel('42'),
        'mcp-param-dry': base64Sentinel('false'),
      };
      expectCalled(await callDeploy(url, { region: 'us-west', count: 42, dry: false }, headers), {
        region: 'us-west',
        count: 42,
        dry: false,
      });
    });

    it('a sentinel that decodes to another value → 400 / -32020', async () => {
      expectMismatch(await callDeploy(url, { region: 'Zürich' }, { 'mcp-param-region': base64Sentinel('Zurich') }));
    });

    it('a sentinel with non-canonical base64 → 400 / -32020', async () => {
      // "abd" and "abc" decode to the same two bytes; only "abc" is their canonical encoding.
      expectMismatch(await callDeploy(url, { region: 'i\u00b7' }, { 'mcp-param-region': '=?base64?abd?=' }), /base64/);
    });

    it('a sentinel whose bytes are not UTF-8 → 400 / -32020 (not decoded to U+FFFD and compared)', async () => {
      // 0xFF can never appear in UTF-8; a lenient decoder turns it into U+FFFD, which would then "match" this body.
      const notUtf8 = `=?base64?${Buffer.from([0xff]).toString('base64')}?=`;
      expectMismatch(await callDeploy(url, { region: '\ufffd' }, { 'mcp-param-region': notUtf8 }), /Mcp-Param-Region/);
    });

    it('markers are exact and lower-case: =?BASE64?…?= is a literal value', async () => {
      const upper = `=?BASE64?${Buffer.from('us-west').toString('base64')}?=`;
      expectMismatch(await callDeploy(url, { region: 'us-west' }, { 'mcp-param-region': upper }), /does not match/);
      expectCalled(await callDeploy(url, { region: upper }, { 'mcp-param-region': upper }), { region: upper });
    });
  });

  // spec 2026-07-28: basic/transports/streamable-http, "Server Behavior for Custom Headers" (invalid characters;
  // unrecognised headers ignored)
  describe('header characters', () => {
    it('a recognised header with a control character (tab) → 400 / -32020', async () => {
      const response = await callDeploy(url, { region: 'us\twest' }, { 'mcp-param-region': 'us\twest' }, 'http');
      expectMismatch(response, /invalid characters/);
    });

    it('a recognised header with raw non-ASCII (not Base64-encoded) → 400 / -32020', async () => {
      // Node sends the string as latin-1 bytes; the value must be visible ASCII or the sentinel.
      const response = await callDeploy(url, { region: 'Zé' }, { 'mcp-param-region': 'Zé' }, 'http');
      expectMismatch(response, /invalid characters/);
    });

    it('an unrecognised Mcp-Param-* header is ignored, whatever its value', async () => {
      const headers = { ...FULL_HEADERS, 'mcp-param-other': 'anything\tat all', 'mcp-param-note': 'not annotated' };
      expectCalled(await callDeploy(url, FULL_ARGS, headers, 'http'), FULL_ARGS);
    });

    it('Mcp-Param-* headers on a tool without annotations are ignored', async () => {
      const response = await mcpPost(url, {
        method: 'tools/call',
        params: { name: 'plain', arguments: { region: 'us-west' } },
        headers: { 'mcp-param-region': 'eu-west' },
      });
      expectCalled(response, { region: 'us-west' });
    });

    it('a recognised header sent twice → 400 / -32020, even with equal values', async () => {
      const response = await mcpPostViaHttp(url, {
        method: 'tools/call',
        params: { name: 'deploy', arguments: { region: 'us-west' } },
        headers: { 'mcp-param-region': ['us-west', 'us-west'] as unknown as string },
      });
      expectMismatch(response, /more than once/);
    });
  });

  describe('the current definition is what counts', () => {
    it('after a runtime re-registration renames the header, the old header no longer satisfies the call', async () => {
      const registry = running.app.get(McpRegistry);
      const schema = (header: string) => ({
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': header } },
      });
      const handler = (args: Record<string, unknown>) => JSON.stringify(args);
      registry.registerTool({ name: 'relabel', input: schema('Region') }, handler);
      try {
        const call = (headers: Record<string, string>) =>
          mcpPost(url, { method: 'tools/call', params: { name: 'relabel', arguments: { region: 'r' } }, headers });
        expectCalled(await call({ 'mcp-param-region': 'r' }), { region: 'r' });
        registry.removeTool('relabel');
        registry.registerTool({ name: 'relabel', input: schema('Area') }, handler);
        expectMismatch(await call({ 'mcp-param-region': 'r' }), /Mcp-Param-Area/);
        expectCalled(await call({ 'mcp-param-area': 'r' }), { region: 'r' });
      } finally {
        registry.removeTool('relabel');
      }
    });

    it('a runtime registration with a broken annotation throws McpDefinitionError and registers nothing', () => {
      const registry = running.app.get(McpRegistry);
      const input = { type: 'object', properties: { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } } };
      expect(() => registry.registerTool({ name: 'broken_runtime', input }, () => 'x')).toThrow(McpDefinitionError);
      expect(registry.getTool('broken_runtime')).toBeUndefined();
    });
  });

  describe('through the official client', () => {
    it('the client sends the Mcp-Param-* headers itself (Base64 for non-ASCII) and the call succeeds', async () => {
      const sent: Array<Record<string, string>> = [];
      const recorder = recordingFetch();
      const spy = ((input: string | URL | Request, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        const params: Record<string, string> = {};
        headers.forEach((value, name) => {
          if (name.startsWith('mcp-param-') || name === 'mcp-method' || name === 'mcp-name') params[name] = value;
        });
        sent.push(params);
        return recorder.fetch(input, init);
      }) as typeof fetch;
      const client = await connectClient(url, { fetch: spy });
      try {
        const { tools } = await client.listTools();
        // The client keeps the tool (it drops tools with invalid annotations).
        expect(tools.map((tool) => tool.name)).toContain('deploy');
        const args = { region: 'Zürich', count: 7, dry: false, target: { zone: 'z-9' } };
        const result = await client.callTool({ name: 'deploy', arguments: args });
        expect(result.isError).toBeFalsy();
        expect(JSON.parse((result.content as TextBlock[])[0].text)).toEqual(args);
        const callHeaders = sent.filter((headers) => headers['mcp-method'] === 'tools/call');
        expect(callHeaders).toHaveLength(1);
        expect(callHeaders[0]).toEqual({
          'mcp-method': 'tools/call',
          'mcp-name': 'deploy',
          'mcp-param-region': base64Sentinel('Zürich'),
          'mcp-param-count': '7',
          'mcp-param-dry': 'false',
          'mcp-param-zone': 'z-9',
        });
        // A null argument: the client omits the header, the server does not expect it (the schema then rejects null).
        const withNull = await client.callTool({ name: 'deploy', arguments: { region: null, count: 1 } });
        expect(withNull.isError).toBe(true);
        expect(await assertAllValid(recorder)).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });
  });
});

/** Compiles `module` and initialises an application on `adapter` without listening; returns the init outcome. */
async function initApp(adapter: AdapterName, module: ReturnType<typeof brokenToolModule>): Promise<unknown> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  const app: INestApplication =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await app.close().catch(() => undefined);
  }
}

// spec 2026-07-28: server/tools, "x-mcp-header"
describe.each(ADAPTERS)('x-mcp-header annotations that must fail bootstrap (%s)', (adapter) => {
  const prop = (schema: Record<string, unknown>) => ({ type: 'object', properties: { p: schema } });

  it.each([
    [
      'on a number property',
      prop({ type: 'number', 'x-mcp-header': 'Ratio' }),
      /x-mcp-header "Ratio" is only allowed on string, integer or boolean/,
    ],
    [
      'on an object property',
      prop({ type: 'object', 'x-mcp-header': 'Obj' }),
      /x-mcp-header "Obj" is only allowed on string, integer or boolean/,
    ],
    [
      'on a property without a type',
      prop({ 'x-mcp-header': 'Untyped' }),
      /x-mcp-header "Untyped" is only allowed on string, integer or boolean/,
    ],
    [
      'under items',
      prop({ type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } }),
      /x-mcp-header "Tag" must sit on a property reached through "properties" only/,
    ],
    [
      'under oneOf',
      prop({ oneOf: [{ type: 'string', 'x-mcp-header': 'Either' }, { type: 'integer' }] }),
      /x-mcp-header "Either" must sit on a property reached through "properties" only/,
    ],
    [
      'under anyOf',
      prop({ anyOf: [{ type: 'string', 'x-mcp-header': 'Any' }] }),
      /x-mcp-header "Any" must sit on a property reached through "properties" only/,
    ],
    [
      'under allOf',
      prop({ allOf: [{ type: 'string', 'x-mcp-header': 'All' }] }),
      /x-mcp-header "All" must sit on a property reached through "properties" only/,
    ],
    [
      'under not',
      prop({ not: { type: 'string', 'x-mcp-header': 'Not' } }),
      /x-mcp-header "Not" must sit on a property reached through "properties" only/,
    ],
    [
      'under if/then',
      prop({ if: { type: 'string' }, then: { type: 'string', 'x-mcp-header': 'Then' } }),
      /x-mcp-header "Then" must sit on a property reached through "properties" only/,
    ],
    [
      'under additionalProperties',
      { type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'Extra' } },
      /x-mcp-header "Extra" must sit on a property reached through "properties" only/,
    ],
    [
      'under $defs (reachable only through $ref)',
      {
        type: 'object',
        properties: { p: { $ref: '#/$defs/d' } },
        $defs: { d: { type: 'string', 'x-mcp-header': 'Ref' } },
      },
      /x-mcp-header "Ref" must sit on a property reached through "properties" only/,
    ],
    [
      'at the schema root',
      { type: 'object', 'x-mcp-header': 'Root', properties: {} },
      /x-mcp-header "Root" must sit on a property reached through "properties" only/,
    ],
    [
      'twice, differing only in case',
      {
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'Region' },
          b: { type: 'string', 'x-mcp-header': 'REGION' },
        },
      },
      /x-mcp-header "REGION" is declared twice/,
    ],
    [
      'twice on nested properties',
      {
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'Zone' },
          o: { type: 'object', properties: { b: { type: 'string', 'x-mcp-header': 'zone' } } },
        },
      },
      /x-mcp-header "zone" is declared twice/,
    ],
    [
      'with a non-token name',
      prop({ type: 'string', 'x-mcp-header': 'Bad Name' }),
      /x-mcp-header on property "p" must be a non-empty header token/,
    ],
    [
      'with a delimiter in the name',
      prop({ type: 'string', 'x-mcp-header': 'a:b' }),
      /x-mcp-header on property "p" must be a non-empty header token/,
    ],
    [
      'with an empty name',
      prop({ type: 'string', 'x-mcp-header': '' }),
      /x-mcp-header on property "p" must be a non-empty header token/,
    ],
    [
      'with a non-string name',
      prop({ type: 'string', 'x-mcp-header': 42 }),
      /x-mcp-header on property "p" must be a non-empty header token/,
    ],
  ])(
    '%s: app.init() rejects with McpDefinitionError naming the tool and the problem',
    async (_label, input, message) => {
      const error = await initApp(adapter, brokenToolModule(input));
      expect(error).toBeInstanceOf(McpDefinitionError);
      expect((error as Error).message).toMatch(/^nest-mcp: BrokenTool\.run: /);
      expect((error as Error).message).toMatch(message);
    },
  );

  it('a valid nested annotation with a token name full of tchars bootstraps', async () => {
    const input = {
      type: 'object',
      properties: {
        o: { type: 'object', properties: { v: { type: 'integer', 'x-mcp-header': "X-Trace_id.v1!#$%&'*+^`|~" } } },
      },
    };
    expect(await initApp(adapter, brokenToolModule(input))).toBeUndefined();
  });
});
