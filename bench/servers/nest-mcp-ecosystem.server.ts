import 'reflect-metadata';
import { type DynamicModule, Injectable, type INestApplication, Module, type Provider } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { CacheModule } from '@nestjs/cache-manager';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { McpArgs, McpModule, McpTool, mcpThrottlerOptions } from '../../libs/mcp/src/index.js';
import { McpCacheInterceptor } from '../../libs/mcp/src/cache-manager/index.js';
import { BenchTools } from './nest-mcp/bench.tools.js';
import { LOOKUP_INPUT_SCHEMA, lookupRows } from './shared/ecosystem-bench.constants.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * The `cache` and `throttler` workloads' server (issue #30): nest-mcp serving the bench tools and `lookup` (read-only,
 * a little CPU per call), with one of the Nest modules users run, or without:
 *
 *   node dist/bench/bench/servers/nest-mcp-ecosystem.server.js --adapter express|fastify --with none|cache|throttler
 *
 * `cache`: `@nestjs/cache-manager` (memory) and `McpCacheInterceptor` globally; `throttler`: `@nestjs/throttler`'s
 * guard globally with `mcpThrottlerOptions` and a limit no run reaches (the guard's cost, never a refusal).
 */

type Extra = 'none' | 'cache' | 'throttler';

/** `lookup`: what a read-only tool worth caching costs, the same on every server. */
@Injectable()
class LookupTools {
  @McpTool({
    description: 'Looks rows up (read-only)',
    input: LOOKUP_INPUT_SCHEMA,
    annotations: { readOnlyHint: true },
  })
  lookup(@McpArgs('query') query: string) {
    return { rows: lookupRows(query) };
  }
}

function extraOf(argv: string[] = process.argv.slice(2)): Extra {
  const index = argv.indexOf('--with');
  const value = index >= 0 ? argv[index + 1] : 'none';
  if (value !== 'none' && value !== 'cache' && value !== 'throttler')
    throw new Error(`--with must be none, cache or throttler (got ${value})`);
  return value;
}

function benchModule(extra: Extra): DynamicModule {
  const imports: DynamicModule[] = [McpModule.forRoot({ name: 'nest-mcp-ecosystem-bench', version: '1.0.0' })];
  const providers: Provider[] = [BenchTools, LookupTools];
  if (extra === 'cache') {
    imports.push(CacheModule.register({ isGlobal: true, ttl: 60_000 }));
    providers.push({ provide: APP_INTERCEPTOR, useClass: McpCacheInterceptor });
  }
  if (extra === 'throttler') {
    // A one-second window: the stock memory storage keeps one timestamp per hit of the window and filters them on
    // every hit, so its cost grows with the calls one caller makes per window (the bench's one client: thousands).
    imports.push(
      ThrottlerModule.forRoot({
        throttlers: [{ name: 'default', limit: 1_000_000_000, ttl: 1_000 }],
        ...mcpThrottlerOptions,
      }),
    );
    providers.push({ provide: APP_GUARD, useClass: ThrottlerGuard });
  }
  @Module({ imports, providers })
  class NestMcpEcosystemBenchModule {}
  return { module: NestMcpEcosystemBenchModule };
}

async function createApp(adapter: AdapterName, extra: Extra): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(benchModule(extra), options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(benchModule(extra), new FastifyAdapter(), options);
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const extra = extraOf();
  const app = await createApp(args.adapter, extra);
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  announce({ name: `nest-mcp (${args.adapter}, with ${extra})`, port: address.port, close: () => app.close() });
}

runMain(main);
