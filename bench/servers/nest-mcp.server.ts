import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpModule } from '../../libs/mcp/src/index.js';
import { RequestStateCodec } from '../../libs/mcp/src/mrtr/request-state.codec.js';
import { McpSubscriptionsService } from '../../libs/mcp/src/subscriptions/subscriptions.service.js';
import { BenchTaskTools, BenchTools, generatedToolsProvider } from './nest-mcp/bench.tools.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * nest-mcp serving the bench tools on Express or Fastify:
 *
 *   npm run bench:server -- --adapter express|fastify --port N [--tools 1000] [--tasks]
 *
 * Default options apart from a fixed requestState key (no per-process-key warning) and room for the 10,000 listen
 * streams of the subscription workload; `--tasks` adds `echo_task` and room for the tasks workload's tasks.
 */

/** A fixed 32-byte key, base64: bench-only, never a secret. */
const BENCH_STATE_KEY = createHash('sha256').update('nest-mcp bench requestState key').digest('base64');

function benchModule(generatedTools: number, withTasks: boolean): DynamicModule {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'nest-mcp-bench',
        version: '1.0.0',
        requestState: { keys: [BENCH_STATE_KEY] },
        maxListenStreams: 20_000,
        // Every bench stream comes from one anonymous address.
        maxListenStreamsPerAddress: 20_000,
        // `--tasks`: tens of thousands of tasks from one anonymous caller; room for them, each kept 1 minute.
        ...(withTasks ? { tasks: { defaultTtlMs: 60_000, maxTasksPerOwner: 1_000_000, maxTasks: 1_000_000 } } : {}),
      }),
    ],
    providers: [
      BenchTools,
      ...(withTasks ? [BenchTaskTools] : []),
      ...(generatedTools > 0 ? [generatedToolsProvider(generatedTools)] : []),
    ],
  })
  class NestMcpBenchModule {}
  return { module: NestMcpBenchModule };
}

async function createApp(adapter: AdapterName, generatedTools: number, withTasks: boolean): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(benchModule(generatedTools, withTasks), options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(benchModule(generatedTools, withTasks), new FastifyAdapter(), options);
}

/** Seals and opens a state shaped like a one-question round, `iterations` times each; µs per operation. */
function requestStateMicro(
  codec: RequestStateCodec,
  iterations: number,
): { sealUs: number; openUs: number; tokenChars: number } {
  const payload = {
    m: 'tools/call',
    t: 'confirm',
    d: createHash('sha256').update('{"name":"confirm","arguments":{}}').digest('base64url'),
    a: { confirm: { action: 'accept', content: { confirm: true } } },
    p: ['confirm'],
    iat: Date.now(),
  };
  let token = '';
  for (let index = 0; index < 200; index++) codec.open(codec.seal(payload)); // warm-up
  let started = performance.now();
  for (let index = 0; index < iterations; index++) token = codec.seal(payload);
  const sealUs = ((performance.now() - started) * 1000) / iterations;
  started = performance.now();
  for (let index = 0; index < iterations; index++) codec.open(token);
  const openUs = ((performance.now() - started) * 1000) / iterations;
  return { sealUs, openUs, tokenChars: token.length };
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const app = await createApp(args.adapter, args.tools, args.tasks);
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  announce({
    name: `nest-mcp (${args.adapter}${args.tools ? `, ${args.tools} generated tools` : ''}${args.tasks ? ', echo_task' : ''})`,
    port: address.port,
    close: () => app.close(),
    commands: {
      // Internal diagnostics, read by the listen workload to wait until closed streams are really gone.
      'listen-open': () => app.get(McpSubscriptionsService, { strict: false }).openStreams,
      'mrtr-micro': (raw) =>
        requestStateMicro(
          app.get(RequestStateCodec, { strict: false }),
          Number((raw as { iterations?: number })?.iterations ?? 10_000),
        ),
    },
  });
}

runMain(main);
