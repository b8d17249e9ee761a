import { type INestApplication, type LoggerService, RequestMethod, VersioningType } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyCaptureInstaller } from '../../libs/mcp/src/transport/http/body-capture.installer.js';
import {
  BodyPathsModule,
  RoutedBodyPathsModule,
  SMALL_ENDPOINT_LIMIT,
  TenantBodyPathsModule,
  TwoEndpointsModule,
} from '../fixtures/body-paths.fixture.js';
import { ADAPTERS, type AdapterName } from '../support/app.factory.js';
import { mcpHeaders, mcpPost, requestMeta } from '../support/raw-request.util.js';
import { expectError, expectResult } from '../support/wire-response.util.js';

/**
 * Issue 13, items 3 and 5.
 *
 * 3. Every spelling of a path that the router sends to the MCP endpoint (case, trailing slash, duplicate slashes,
 *    percent-encoding, global prefix and its exclusions, URI versioning, RouterModule, a path parameter, the router's
 *    own settings) gets the endpoint's own body checks and limits; the spellings that do not route are 404; and a
 *    request that reaches the endpoint without a captured body is refused, never served from what the framework
 *    parsed.
 * 5. An upload refused early for its size (413) reaches ordinary clients — fetch, the official client — every time:
 *    the server reads and discards the rest of the upload (bounded in bytes and time) before it closes.
 */

type Module = typeof BodyPathsModule;

interface StartOptions {
  /** Options of the Fastify instance (router settings). */
  fastify?: ConstructorParameters<typeof FastifyAdapter>[0];
  /** An Express application to serve on (created with its own router settings). */
  express?: unknown;
  configure?: (app: INestApplication) => void;
  customize?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  logger?: LoggerService;
}

interface Server {
  url(path: string): URL;
  close(): Promise<void>;
}

async function start(adapter: AdapterName, module: Module, options: StartOptions = {}): Promise<Server> {
  let builder = Test.createTestingModule({ imports: [module] });
  if (options.customize) builder = options.customize(builder);
  const moduleRef = await builder.compile();
  const appOptions = { logger: options.logger ?? (false as const) };
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(options.fastify), appOptions)
      : moduleRef.createNestApplication(
          options.express ? new ExpressAdapter(options.express) : new ExpressAdapter(),
          appOptions,
        );
  options.configure?.(app);
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  // Concatenated, not resolved: `//mcp` must stay a path.
  return { url: (path) => new URL(`${base}${path}`), close: () => app.close() };
}

const DEPTH = 3_000;
const DEPTH_MESSAGE = 'Invalid Request: JSON nested deeper than 64 levels';
const MiB = 1024 * 1024;

/** A tools/list whose params carry a 3,000-deep array: valid JSON-RPC apart from its nesting. */
function deepBody(depth = DEPTH): string {
  const envelope = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: requestMeta(), deep: 0 },
  });
  return envelope.replace('"deep":0', `"deep":${'['.repeat(depth)}0${']'.repeat(depth)}`);
}

/** A 2025-11-25 `initialize` as an HTML form would send it; Express's urlencoded parser turns it into the same object. */
function formInitialize(): string {
  return new URLSearchParams({
    jsonrpc: '2.0',
    id: 'form-init',
    method: 'initialize',
    'params[protocolVersion]': '2025-11-25',
    'params[clientInfo][name]': 'form',
    'params[clientInfo][version]': '1.0.0',
    'params[capabilities][roots][listChanged]': 'true',
  }).toString();
}

async function expectDepthChecked(url: URL, depth = DEPTH): Promise<void> {
  const error = expectError(
    await mcpPost(url, { method: 'tools/list', rawBody: deepBody(depth) }),
    400,
    -32600,
    'absent',
  );
  expect(error.message).toBe(DEPTH_MESSAGE);
}

async function expectFormRefused(url: URL): Promise<void> {
  const response = await mcpPost(url, {
    method: 'initialize',
    rawBody: formInitialize(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'mcp-protocol-version': undefined,
      'mcp-method': undefined,
    },
  });
  expectError(response, 415, -32600, 'absent');
  expect(response.headers.get('mcp-session-id')).toBeNull();
}

async function expectNotRouted(url: URL): Promise<void> {
  expect((await mcpPost(url, { method: 'tools/list', rawBody: deepBody() })).status).toBe(404);
  expect((await mcpPost(url, { method: 'tools/list' })).status).toBe(404);
}

async function expectServing(url: URL): Promise<void> {
  const result = expectResult<{ content: Array<{ text: string }> }>(
    await mcpPost(url, { method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } }),
    'tools/call',
  );
  expect(result.content[0].text).toBe('still here');
}

/** Which spellings reach the endpoint, per adapter (Express routes case-insensitively and ignores one trailing slash). */
type Routing = Record<AdapterName, boolean>;
const BOTH: Routing = { express: true, fastify: true };
const EXPRESS_ONLY: Routing = { express: true, fastify: false };
const NEITHER: Routing = { express: false, fastify: false };
/** find-my-way decodes percent-encoded unreserved characters before it matches; Express's router does not. */
const FASTIFY_ONLY: Routing = { express: false, fastify: true };

interface PathCase {
  label: string;
  module: Module;
  options: StartOptions;
  canonical: string;
  spellings: Array<[string, Routing]>;
}

const PATH_CASES: PathCase[] = [
  {
    label: 'default path',
    module: BodyPathsModule,
    options: {},
    canonical: '/mcp',
    spellings: [
      ['/mcp', BOTH],
      ['/MCP', EXPRESS_ONLY],
      ['/Mcp/', EXPRESS_ONLY],
      ['/mcp/', EXPRESS_ONLY],
      ['//mcp', NEITHER],
      ['/mcp?x=1', BOTH],
      ['/MCP?/mcp', EXPRESS_ONLY],
      ['/m%63p', FASTIFY_ONLY],
    ],
  },
  {
    label: 'global prefix',
    module: BodyPathsModule,
    options: { configure: (app) => app.setGlobalPrefix('api') },
    canonical: '/api/mcp',
    spellings: [
      ['/api/mcp', BOTH],
      ['/API/MCP', EXPRESS_ONLY],
      ['/api/mcp/', EXPRESS_ONLY],
      ['/mcp', NEITHER],
      ['/MCP', NEITHER],
    ],
  },
  {
    label: 'global prefix that excludes the endpoint',
    module: BodyPathsModule,
    options: {
      configure: (app) => app.setGlobalPrefix('api', { exclude: [{ path: 'mcp', method: RequestMethod.ALL }] }),
    },
    canonical: '/mcp',
    spellings: [
      ['/mcp', BOTH],
      ['/MCP', EXPRESS_ONLY],
      ['/api/mcp', NEITHER],
    ],
  },
  {
    label: 'URI versioning',
    module: BodyPathsModule,
    options: { configure: (app) => app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' }) },
    canonical: '/v1/mcp',
    spellings: [
      ['/v1/mcp', BOTH],
      ['/V1/Mcp', EXPRESS_ONLY],
      ['/v1/mcp/', EXPRESS_ONLY],
      ['/mcp', NEITHER],
      ['/v2/mcp', NEITHER],
    ],
  },
  {
    label: 'RouterModule path',
    module: RoutedBodyPathsModule,
    options: {},
    canonical: '/tools/mcp',
    spellings: [
      ['/tools/mcp', BOTH],
      ['/TOOLS/mcp', EXPRESS_ONLY],
      ['/tools/mcp/', EXPRESS_ONLY],
      ['/mcp', NEITHER],
    ],
  },
  {
    label: 'path with a parameter',
    module: TenantBodyPathsModule,
    options: {},
    canonical: '/acme/mcp',
    spellings: [
      ['/acme/mcp', BOTH],
      ['/ACME/MCP', EXPRESS_ONLY],
      ['/acme/mcp/', EXPRESS_ONLY],
      ['/mcp', NEITHER],
      ['//mcp', NEITHER],
    ],
  },
];

describe.each(ADAPTERS)('every path that routes to the endpoint gets its body checks (%s)', (adapter) => {
  describe.each(PATH_CASES)('$label', ({ module, options, canonical, spellings }) => {
    let server: Server;
    beforeAll(async () => {
      server = await start(adapter, module, options);
    });
    afterAll(async () => {
      await server?.close();
    });

    it.each(spellings)('%s', async (path, routing) => {
      if (routing[adapter]) {
        await expectDepthChecked(server.url(path));
        await expectFormRefused(server.url(path));
        await expectServing(server.url(path));
      } else {
        await expectNotRouted(server.url(path));
      }
      await expectServing(server.url(canonical));
    });
  });
});

describe('router settings decide, and the capture follows them', () => {
  it('Fastify with caseSensitive: false, ignoreTrailingSlash and ignoreDuplicateSlashes: every spelling is checked', async () => {
    const server = await start('fastify', BodyPathsModule, {
      fastify: { routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true } },
    });
    try {
      for (const path of ['/mcp', '/MCP', '/Mcp/', '/mcp/', '//mcp', '//MCP//']) {
        await expectDepthChecked(server.url(path));
        await expectFormRefused(server.url(path));
        await expectServing(server.url(path));
      }
    } finally {
      await server.close();
    }
  });

  it('Express with "case sensitive routing" and "strict routing": the other spellings are 404', async () => {
    const express = createRequire(import.meta.url)('express') as () => { enable(setting: string): unknown };
    const app = express();
    app.enable('case sensitive routing');
    app.enable('strict routing');
    const server = await start('express', BodyPathsModule, { express: app });
    try {
      await expectDepthChecked(server.url('/mcp'));
      for (const path of ['/MCP', '/mcp/', '/Mcp/']) await expectNotRouted(server.url(path));
      await expectServing(server.url('/mcp'));
    } finally {
      await server.close();
    }
  });

  it('Fastify rewriteUrl: the rewritten request is captured by the route it reaches', async () => {
    const server = await start('fastify', BodyPathsModule, {
      fastify: { rewriteUrl: (request) => (request.url === '/alias' ? '/mcp' : (request.url ?? '/')) },
    });
    try {
      await expectDepthChecked(server.url('/alias'));
      await expectFormRefused(server.url('/alias'));
      await expectServing(server.url('/alias'));
    } finally {
      await server.close();
    }
  });
});

/** Collects what the application logs at error and warn level. */
class RecordingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(): void {}
  error(message: unknown): void {
    this.lines.push(`error ${String(message)}`);
  }
  warn(message: unknown): void {
    this.lines.push(`warn ${String(message)}`);
  }
}

describe.each(ADAPTERS)('two endpoints in one application (%s)', (adapter) => {
  it('each spelling gets the limits of the endpoint it routes to (and the capture finds both routes at startup)', async () => {
    const logger = new RecordingLogger();
    const server = await start(adapter, TwoEndpointsModule, { logger });
    const padded = (size: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: { _meta: requestMeta(), pad: 'p'.repeat(size) },
      });
    try {
      expect(logger.lines.filter((line) => line.startsWith('error'))).toEqual([]);
      const spellings = adapter === 'express' ? ['/small/mcp', '/SMALL/MCP/'] : ['/small/mcp'];
      for (const path of spellings) {
        expectError(
          await mcpPost(server.url(path), { method: 'tools/list', rawBody: padded(2 * SMALL_ENDPOINT_LIMIT) }),
          413,
          -32600,
          'either',
        );
        // Shallower than elsewhere (100 levels), to fit in this endpoint's 1 KiB.
        await expectDepthChecked(server.url(path), 100);
        expectResult(await mcpPost(server.url(path), { method: 'tools/list' }), 'tools/list');
      }
      for (const path of adapter === 'express' ? ['/large/mcp', '/LARGE/MCP/'] : ['/large/mcp']) {
        expectResult(
          await mcpPost(server.url(path), { method: 'tools/list', rawBody: padded(2 * SMALL_ENDPOINT_LIMIT) }),
          'tools/list',
        );
        await expectDepthChecked(server.url(path));
      }
    } finally {
      await server.close();
    }
  });
});

const NOT_CAPTURED = /body was not captured/;

describe.each(ADAPTERS)('a request that reaches the endpoint without a captured body is refused (%s)', (adapter) => {
  it('with the body capture removed, every POST is refused with 500 / -32603 and one log line, never served', async () => {
    const logger = new RecordingLogger();
    const server = await start(adapter, BodyPathsModule, {
      logger,
      customize: (builder) => builder.overrideProvider(BodyCaptureInstaller).useValue({}),
    });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = expectError(
          await mcpPost(server.url('/mcp'), {
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: 'parsed by the framework' } },
          }),
          500,
          -32603,
          'absent',
        );
        expect(refused.message).toMatch(NOT_CAPTURED);
        const deep = await mcpPost(server.url('/mcp'), { method: 'tools/list', rawBody: deepBody() });
        expect(deep.status).toBe(500);
      }
      expect(logger.lines.filter((line) => NOT_CAPTURED.test(line))).toHaveLength(1);
      // GET and DELETE carry no body and are unaffected.
      expect((await fetch(server.url('/mcp'))).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  if (adapter === 'express') {
    it('a URL rewritten after the capture ran reaches the endpoint uncaptured: refused, not served', async () => {
      const server = await start('express', BodyPathsModule, {
        configure: (app) =>
          app.use((request: { url: string }, _response: unknown, next: () => void) => {
            if (request.url === '/alias') request.url = '/mcp';
            next();
          }),
      });
      try {
        const refused = expectError(
          await mcpPost(server.url('/alias'), { method: 'tools/list', rawBody: deepBody() }),
          500,
          -32603,
          'absent',
        );
        expect(refused.message).toMatch(NOT_CAPTURED);
        expect(
          (
            await mcpPost(server.url('/alias'), {
              method: 'initialize',
              rawBody: formInitialize(),
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            })
          ).headers.get('mcp-session-id'),
        ).toBeNull();
        await expectServing(server.url('/mcp'));
      } finally {
        await server.close();
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Item 5: an early 413 reaches the client.

const execFileAsync = promisify(execFile);
const TRIES = 20;
const UPLOAD_BYTES = 12_000_000;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs `test/fixtures/upload-client-main.fixture.ts` in its own process (a client sharing the server's event loop
 * never races the server's close) and returns what each try ended with.
 */
async function uploadsFromAnotherProcess(
  url: URL,
  mode: 'fetch-length' | 'fetch-chunked' | 'client',
): Promise<string[]> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      '--import',
      join(ROOT, 'test/support/ts-child.loader.mjs'),
      join(ROOT, 'test/fixtures/upload-client-main.fixture.ts'),
      url.href,
      String(TRIES),
      mode,
      String(UPLOAD_BYTES),
    ],
    { cwd: ROOT, timeout: 90_000, maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

/** What a raw client that never stops sending saw: the answer, and when (if at all) the server closed. */
interface EndlessUpload {
  answer: string;
  closedAfterMs?: number;
  sentBytes: number;
}

/**
 * Sends headers announcing a body (a huge Content-Length, or chunked) and then keeps sending — as fast as the socket
 * takes it, or a little every 50 ms — until the server closes the connection or `giveUpMs` passes.
 */
function endlessUpload(
  url: URL,
  mode: { framing: 'declared' | 'chunked'; pace: 'fast' | 'trickle' },
  giveUpMs = 15_000,
): Promise<EndlessUpload> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    const started = Date.now();
    let sentBytes = 0;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const piece = Buffer.alloc(mode.pace === 'fast' ? 64 * 1024 : 1024, 'x');
    const framed =
      mode.framing === 'chunked'
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
        : piece;
    const finish = () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      clearTimeout(giveUp);
      const elapsed = Date.now() - started;
      socket.destroy();
      resolve({
        answer: Buffer.concat(received).toString('latin1'),
        closedAfterMs: elapsed < giveUpMs ? elapsed : undefined,
        sentBytes,
      });
    };
    const giveUp = setTimeout(finish, giveUpMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', finish);
    socket.on('end', finish);
    socket.on('close', finish);
    const head = [
      `POST ${url.pathname} HTTP/1.1`,
      `Host: 127.0.0.1:${url.port}`,
      ...Object.entries(mcpHeaders('tools/call', { name: 'echo' })).map(([name, value]) => `${name}: ${value}`),
      mode.framing === 'declared' ? `Content-Length: ${1024 * 1024 * MiB}` : 'Transfer-Encoding: chunked',
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n`);
    const send = (): void => {
      while (!closed && socket.writable) {
        sentBytes += framed.length;
        if (!socket.write(framed)) {
          socket.once('drain', send);
          return;
        }
      }
    };
    if (mode.pace === 'fast') send();
    else
      timer = setInterval(() => {
        if (!closed && socket.writable) {
          sentBytes += framed.length;
          socket.write(framed);
        }
      }, 50);
  });
}

function expect413(answer: string): void {
  expect(answer.slice(0, 40)).toMatch(/^HTTP\/1\.1 413 /);
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  expect((JSON.parse(body) as { error: { code: number } }).error.code).toBe(-32600);
}

describe.each(ADAPTERS)('an early 413 reaches ordinary clients (%s)', (adapter) => {
  let server: Server;
  let url: URL;

  beforeAll(async () => {
    server = await start(adapter, BodyPathsModule);
    url = server.url('/mcp');
  });
  afterAll(async () => {
    await server?.close();
  });

  it(`fetch, ${TRIES} uploads of 12 MB with a Content-Length: every one gets 413 / -32600`, async () => {
    expect(await uploadsFromAnotherProcess(url, 'fetch-length')).toEqual(Array(TRIES).fill('413 -32600'));
    await expectServing(url);
  }, 90_000);

  it(`fetch, ${TRIES} chunked uploads of 12 MB (refused once past the limit): every one gets 413 / -32600`, async () => {
    expect(await uploadsFromAnotherProcess(url, 'fetch-chunked')).toEqual(Array(TRIES).fill('413 -32600'));
    await expectServing(url);
  }, 90_000);

  it(`the official client, ${TRIES} calls with a 12 MB argument: every one fails with HTTP 413 and the JSON-RPC error`, async () => {
    const outcomes = await uploadsFromAnotherProcess(url, 'client');
    expect(outcomes).toEqual([...Array(TRIES).fill('413 -32600'), JSON.stringify([{ type: 'text', text: 'small' }])]);
    await expectServing(url);
  }, 90_000);

  it('an endless upload with a huge Content-Length: 413 at once, then the connection is cut after the byte bound', async () => {
    const result = await endlessUpload(url, { framing: 'declared', pace: 'fast' });
    expect413(result.answer);
    expect(result.closedAfterMs, 'the server never closed the connection').toBeDefined();
    expect(result.closedAfterMs!).toBeLessThan(4_000);
    // 4 × maxBodyBytes (16 MiB) are read at most; the rest is what the socket buffers held.
    expect(result.sentBytes).toBeLessThan(40 * MiB);
    await expectServing(url);
  });

  it('an endless chunked upload: 413 once past the limit, then the connection is cut after the byte bound', async () => {
    const result = await endlessUpload(url, { framing: 'chunked', pace: 'fast' });
    expect413(result.answer);
    expect(result.closedAfterMs, 'the server never closed the connection').toBeDefined();
    expect(result.closedAfterMs!).toBeLessThan(4_000);
    expect(result.sentBytes).toBeLessThan(40 * MiB);
    await expectServing(url);
  });

  it('an endless upload that trickles: 413 at once, then the connection is cut after the time bound', async () => {
    const result = await endlessUpload(url, { framing: 'declared', pace: 'trickle' });
    expect413(result.answer);
    expect(result.closedAfterMs, 'the server never closed the connection').toBeDefined();
    expect(result.closedAfterMs!).toBeGreaterThan(3_000);
    expect(result.closedAfterMs!).toBeLessThan(8_000);
    await expectServing(url);
  }, 20_000);
});
