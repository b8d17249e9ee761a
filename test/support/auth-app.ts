import type { INestApplication, LoggerService } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { McpAuthOptions, McpModuleOptions } from 'nest-mcp';
import { expect } from 'vitest';
import { AuthHttpModule, AuthProbe } from '../fixtures/auth-http.fixture.js';
import type { AdapterName } from './app.factory.js';
import { freePort } from './free-port.js';
import { mcpPost, type RawResponse } from './raw-request.util.js';

/** Every line the application logged, at every level. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private record(level: string, args: unknown[]): void {
    this.lines.push(
      `${level} ${args.map((arg) => (arg instanceof Error ? `${arg.message} ${arg.stack}` : String(arg))).join(' ')}`,
    );
  }
  log(...args: unknown[]): void {
    this.record('log', args);
  }
  error(...args: unknown[]): void {
    this.record('error', args);
  }
  warn(...args: unknown[]): void {
    this.record('warn', args);
  }
  debug(...args: unknown[]): void {
    this.record('debug', args);
  }
  verbose(...args: unknown[]): void {
    this.record('verbose', args);
  }
  fatal(...args: unknown[]): void {
    this.record('fatal', args);
  }
}

/** An `AuthHttpModule` application of the authorization tests, on one adapter. */
export interface AuthApp {
  app: INestApplication;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  mcpUrl: URL;
  /** `auth.resource` as configured. */
  resource: string;
  logger: CapturingLogger;
  probe: AuthProbe;
  close(): Promise<void>;
}

/**
 * Serves `AuthHttpModule` on `adapter`, with `auth` for the resource `<origin><prefix>/mcp` (or none), behind an
 * optional global prefix and with other module options, logging into a `CapturingLogger`.
 */
export async function startAuthApp(
  adapter: AdapterName,
  auth: ((resource: string) => McpAuthOptions) | undefined,
  options: { prefix?: string; module?: Omit<McpModuleOptions, 'name' | 'version' | 'auth'> } = {},
): Promise<AuthApp> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const path = `${options.prefix ? `/${options.prefix}` : ''}/mcp`;
  const resource = `${origin}${path}`;
  const moduleOptions = { ...options.module, ...(auth ? { auth: auth(resource) } : {}) };
  const moduleRef = await Test.createTestingModule({ imports: [AuthHttpModule.serve(moduleOptions)] }).compile();
  const logger = new CapturingLogger();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger })
      : moduleRef.createNestApplication({ logger });
  if (options.prefix) app.setGlobalPrefix(options.prefix);
  await app.listen(port, '127.0.0.1');
  return {
    app,
    origin,
    mcpUrl: new URL(resource),
    resource,
    logger,
    probe: app.get(AuthProbe),
    close: () => app.close(),
  };
}

/** `Authorization: Bearer <token>`. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A 2026-07-28 `tools/call` of `name`, with extra headers. */
export function callTool(
  app: AuthApp,
  name: string,
  headers: Record<string, string | undefined>,
  params: Record<string, unknown> = {},
): Promise<RawResponse> {
  return mcpPost(app.mcpUrl, { method: 'tools/call', params: { name, arguments: {}, ...params }, headers });
}

/** Splits a `WWW-Authenticate: Bearer k="v", …` value into its scheme and parameters. */
export function parseChallenge(value: string | null | undefined): { scheme: string; params: Record<string, string> } {
  expect(value, 'WWW-Authenticate').toBeTypeOf('string');
  const [, scheme, rest] = /^(\S+)\s+(.*)$/.exec(value!)!;
  const params: Record<string, string> = {};
  for (const match of rest.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g))
    params[match[1]] = match[2].replace(/\\(.)/g, '$1');
  return { scheme, params };
}

/** An authorization refusal: status, challenge parameters, and a JSON-RPC error body (no id: none was read). */
export function expectRefusal(
  response: { status: number; headers: Headers; json?: unknown; text: string },
  status: 400 | 401,
  error?: 'invalid_request' | 'invalid_token',
): Record<string, string> {
  expect({ status: response.status, body: response.text.slice(0, 300) }).toMatchObject({ status });
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  const body = response.json as { jsonrpc: string; id?: unknown; error: { code: number; message: string } };
  expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  expect(body).not.toHaveProperty('id');
  const challenge = parseChallenge(response.headers.get('www-authenticate'));
  expect(challenge.scheme).toBe('Bearer');
  if (error) expect(challenge.params.error).toBe(error);
  else {
    expect(challenge.params).not.toHaveProperty('error');
    expect(challenge.params).not.toHaveProperty('error_description');
  }
  return challenge.params;
}
