import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OPS_AUTH } from './access/index.js';
import { AppModule } from './app.module.js';
import { startDemoTelemetry } from './observability/telemetry.setup.js';

/** The HTTP platforms the console can be served on. */
type AdapterName = 'express' | 'fastify';

/** Express, unless `--adapter=fastify` is passed or `ADAPTER=fastify` is set (the flag wins). */
function adapterName(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): AdapterName {
  const flag = argv.find((arg) => arg.startsWith('--adapter='))?.slice('--adapter='.length);
  const name = (flag ?? env.ADAPTER ?? 'express').toLowerCase();
  if (name !== 'express' && name !== 'fastify') {
    throw new Error(`Unknown adapter "${name}": expected "express" or "fastify"`);
  }
  return name;
}

// #region docs:create-app
async function createApp(adapter: AdapterName): Promise<INestApplication> {
  if (adapter === 'express') return NestFactory.create(AppModule);
  // Imported on demand, so that an Express deployment never loads Fastify.
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(AppModule, new FastifyAdapter());
}
// #endregion docs:create-app

async function bootstrap(): Promise<void> {
  const adapter = adapterName();
  // `--otel`: the OpenTelemetry SDK first, before Nest creates anything (docs/observability.md).
  const telemetry = process.argv.includes('--otel') ? await startDemoTelemetry() : undefined;
  const app = await createApp(adapter);
  app.enableShutdownHooks();
  // Flushed as the application shuts down (Nest's shutdown hooks run on SIGTERM/SIGINT), so the last spans leave.
  if (telemetry) process.once('beforeExit', () => void telemetry.shutdown());
  await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
  // getUrl() reports the bound port, which matters with PORT=0.
  Logger.log(`MCP server (${adapter}) listening on ${await app.getUrl()}/mcp`, 'Bootstrap');
  Logger.log(`Admin server (admins only) on ${await app.getUrl()}/admin/mcp`, 'Bootstrap');
  if (telemetry)
    Logger.log(`OpenTelemetry on: traces by OTLP/HTTP, metrics for Prometheus at ${telemetry.metricsUrl}`, 'Bootstrap');
  if (OPS_AUTH) {
    const servers = OPS_AUTH.authorizationServers.join(', ');
    Logger.log(`Authorization on: bearer tokens from ${servers} for ${OPS_AUTH.resource}`, 'Bootstrap');
  }
}

await bootstrap();
