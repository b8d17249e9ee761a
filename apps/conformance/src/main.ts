import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConformanceModule } from './conformance.module.js';

/** Serves the conformance fixture on 127.0.0.1 (`PORT`, default 3001; 0 picks a free port). */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(ConformanceModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3001), '127.0.0.1');
  console.log(`conformance fixture listening on ${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`);
}

void bootstrap();
