import 'reflect-metadata';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { McpContext, McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';
import { YIELD_EVERY, yieldToIo } from './shared/bench-tools.constants.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * `@rekog/mcp-nest` 2.0.5 serving the bench tools: its `McpStrategy` microservice transport with the default
 * `StreamableHttpTransport` (stateless, protocol posture `dual`: 2026-07-28 requests go to the SDK's
 * `createMcpHandler`), self-mounted at `/mcp` on the Nest HTTP adapter, as in its README.
 */

@McpController()
class RekogBenchController {
  @Tool({ name: 'echo', description: 'Returns its text', parameters: z.object({ text: z.string() }) })
  echo(@Payload() { text }: { text: string }) {
    return { content: [{ type: 'text', text }] };
  }

  @Tool({
    name: 'count',
    description: 'Sends n progress notifications, then returns',
    parameters: z.object({ n: z.number().int().min(0).max(1_000_000) }),
  })
  async count(@Payload() { n }: { n: number }, @Ctx() ctx: McpContext) {
    for (let index = 1; index <= n; index++) {
      await ctx.reportProgress({ progress: index, total: n });
      if (index % YIELD_EVERY === 0) await yieldToIo();
    }
    return { content: [{ type: 'text', text: `counted ${n}` }] };
  }
}

@Module({ controllers: [RekogBenchController] })
class RekogBenchModule {}

async function createApp(adapter: AdapterName): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(RekogBenchModule, options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(RekogBenchModule, new FastifyAdapter(), options);
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const app = await createApp(args.adapter);
  const strategy = new McpStrategy({
    name: 'rekog-bench',
    version: '1.0.0',
    transports: [new StreamableHttpTransport()],
    logging: false,
  });
  strategy.setHttpAdapter(app.getHttpAdapter());
  app.connectMicroservice({ strategy });
  await app.startAllMicroservices();
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  announce({ name: `@rekog/mcp-nest (${args.adapter})`, port: address.port, close: () => app.close() });
}

runMain(main);
