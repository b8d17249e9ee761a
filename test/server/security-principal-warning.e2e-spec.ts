import { ConsoleLogger, Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { McpModule, McpStdio, McpTool, type McpModuleOptions } from 'nest-mcp';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, type AdapterName } from '../support/app.factory.js';
import { mcpPost } from '../support/raw-request.util.js';
import { expectResult } from '../support/wire-response.util.js';

/**
 * Issue #13, item 10e: one warning at bootstrap when `requestState` or sessions are in use and no `principal`
 * resolver binds them to a caller; none when a principal is configured, over stdio, or when there is nothing to bind.
 */

const WARNING = /^No principal resolver is configured: /;

/** Keeps every warning the application logs. */
class CapturingLogger extends ConsoleLogger {
  readonly warnings: string[] = [];
  override log(): void {}
  override debug(): void {}
  override verbose(): void {}
  override error(): void {}
  override warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

@Injectable()
class PingTools {
  @McpTool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

@Module({})
class WarningHostModule {
  static with(options: Partial<McpModuleOptions>, withTools = true): DynamicModule {
    return {
      module: WarningHostModule,
      imports: [McpModule.forRoot({ name: 'principal-warning', version: '1.0.0', ...options })],
      providers: withTools ? [PingTools] : [],
    };
  }
}

let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Starts the module on `adapter` with a capturing logger; returns the logger and the endpoint URL. */
async function start(adapter: AdapterName, module: DynamicModule): Promise<{ logger: CapturingLogger; mcpUrl: URL }> {
  const logger = new CapturingLogger();
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger })
      : moduleRef.createNestApplication({ logger });
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  return { logger, mcpUrl: new URL(`${baseUrl}/mcp`) };
}

/** The endpoint answers normally whatever was logged. */
async function answers(mcpUrl: URL): Promise<void> {
  const response = await mcpPost(mcpUrl, { method: 'tools/list' });
  expect(response.status).toBe(200);
  expectResult(response, 'tools/list');
}

describe.each(ADAPTERS)('principal warning at bootstrap (%s)', (adapter) => {
  it('defaults (sessions on, a tool, no principal): exactly one warning, naming sessions and the option', async () => {
    const { logger, mcpUrl } = await start(adapter, WarningHostModule.with({}));
    const warnings = logger.warnings.filter((warning) => WARNING.test(warning));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /requestState values \(multi-round calls\) and 2025-11-25 sessions are not bound to a caller/,
    );
    expect(warnings[0]).toMatch(/principal: \(request\) => request\.user\?\.sub/);
    await answers(mcpUrl);
  });

  it('legacyWire: false with a tool: one warning, about requestState only', async () => {
    const { logger, mcpUrl } = await start(adapter, WarningHostModule.with({ legacyWire: false }));
    const warnings = logger.warnings.filter((warning) => WARNING.test(warning));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toMatch(/sessions/);
    await answers(mcpUrl);
  });

  it('a principal resolver is configured: no warning', async () => {
    const { logger, mcpUrl } = await start(adapter, WarningHostModule.with({ principal: () => 'someone' }));
    expect(logger.warnings.filter((warning) => WARNING.test(warning))).toEqual([]);
    await answers(mcpUrl);
  });

  it('legacyWire: false and no handler: nothing to bind, no warning', async () => {
    const { logger } = await start(adapter, WarningHostModule.with({ legacyWire: false }, false));
    expect(logger.warnings.filter((warning) => WARNING.test(warning))).toEqual([]);
  });
});

describe('principal warning over stdio', () => {
  it('no HTTP server, one client per process: no warning', async () => {
    const logger = new CapturingLogger();
    const moduleRef = await Test.createTestingModule({ imports: [WarningHostModule.with({})] }).compile();
    moduleRef.useLogger(logger);
    const server = await McpStdio.attach(moduleRef, { stdin: new PassThrough(), stdout: new PassThrough() });
    try {
      expect(logger.warnings.filter((warning) => WARNING.test(warning))).toEqual([]);
    } finally {
      await server.close();
      await moduleRef.close();
    }
  });
});
