import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';

/** The two HTTP adapters every transport test runs on. */
export const ADAPTERS = ['express', 'fastify'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** A started application and the URL of its MCP endpoint. */
export interface RunningApp {
  app: INestApplication;
  baseUrl: string;
  mcpUrl: URL;
  close(): Promise<void>;
}

/**
 * Compiles a testing module, serves it on 127.0.0.1 with a free port (or `port`, when the URL must be known before, as
 * a token's audience) on the given adapter, and returns its URL.
 * `customize` may override providers or guards before compilation.
 */
export async function startApp(
  adapter: AdapterName,
  metadata: ModuleMetadata,
  options: { path?: string; port?: number; customize?: (builder: TestingModuleBuilder) => TestingModuleBuilder } = {},
): Promise<RunningApp> {
  let builder = Test.createTestingModule(metadata);
  if (options.customize) builder = options.customize(builder);
  const moduleRef = await builder.compile();
  const app =
    adapter === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  await app.listen(options.port ?? 0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  return {
    app,
    baseUrl,
    mcpUrl: new URL(`${baseUrl}${options.path ?? '/mcp'}`),
    close: () => app.close(),
  };
}
