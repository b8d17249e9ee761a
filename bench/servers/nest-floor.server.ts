import 'reflect-metadata';
import { Body, Controller, HttpCode, type INestApplication, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { echoResponse, type FrameSink, streamCount } from './shared/floor-responses.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * The framework floor: a bare Nest 12 `@Post` controller answering the same JSON as nest-mcp's `echo`
 * (`POST /mcp`), and streaming the same frames as its `count` (`POST /stream`), on Express or Fastify.
 */

@Controller()
class FloorController {
  @Post('mcp')
  @HttpCode(200)
  echo(@Body() body: unknown): object {
    return echoResponse(body);
  }

  @Post('stream')
  async stream(@Body() body: unknown, @Res() response: unknown): Promise<void> {
    // Fastify: take the raw response over from the framework, as nest-mcp does.
    const reply = response as { hijack?: () => void; raw?: FrameSink };
    if (typeof reply.hijack === 'function' && reply.raw) {
      reply.hijack();
      await streamCount(body, reply.raw);
      return;
    }
    await streamCount(body, response as FrameSink);
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function createApp(adapter: AdapterName): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(FloorModule, options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(FloorModule, new FastifyAdapter(), options);
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const app = await createApp(args.adapter);
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  announce({ name: `bare Nest floor (${args.adapter})`, port: address.port, close: () => app.close() });
}

runMain(main);
