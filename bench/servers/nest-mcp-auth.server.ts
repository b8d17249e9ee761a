import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JwtTokenVerifier } from '../../libs/mcp/src/backend/index.js';
import { type McpAuthOptions, McpModule } from '../../libs/mcp/src/index.js';
import { BenchTools } from './nest-mcp/bench.tools.js';
import { AUTH_BENCH_RESOURCE } from './shared/auth-bench.constants.js';
import { type AdapterName, announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * The `auth` workload's server: nest-mcp serving the bench tools, with authorization (`--issuer URL --jwks-uri URL`:
 * every request needs a bearer JWT for `AUTH_BENCH_RESOURCE`, verified with jose against that JWKS) or without it (no
 * `--issuer`: the same module, the same requests, the header ignored).
 *
 *   node dist/bench/bench/servers/nest-mcp-auth.server.js --adapter express|fastify [--issuer URL --jwks-uri URL]
 *
 * IPC `verify-micro` ({ token, iterations }): µs per `JwtTokenVerifier.verify` of one token, in this process.
 */

/** A fixed 32-byte key, base64: bench-only, never a secret. */
const BENCH_STATE_KEY = createHash('sha256').update('nest-mcp bench requestState key').digest('base64');

/** `--name value` / `--name=value` of this server's own flags (the shared ones are read by parseServerArgs). */
function flag(name: string, argv: string[] = process.argv.slice(2)): string | undefined {
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === `--${name}`) return argv[index + 1];
    if (argv[index].startsWith(`--${name}=`)) return argv[index].slice(name.length + 3);
  }
  return undefined;
}

function authOptions(): McpAuthOptions | undefined {
  const issuer = flag('issuer');
  const jwksUri = flag('jwks-uri');
  if (!issuer) return undefined;
  if (!jwksUri) throw new Error('--issuer needs --jwks-uri');
  return { resource: AUTH_BENCH_RESOURCE, authorizationServers: [issuer], jwt: { jwksUri } };
}

function benchModule(auth: McpAuthOptions | undefined): DynamicModule {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'nest-mcp-auth-bench',
        version: '1.0.0',
        requestState: { keys: [BENCH_STATE_KEY] },
        auth,
      }),
    ],
    providers: [BenchTools],
  })
  class NestMcpAuthBenchModule {}
  return { module: NestMcpAuthBenchModule };
}

async function createApp(adapter: AdapterName, auth: McpAuthOptions | undefined): Promise<INestApplication> {
  const options = { logger: ['error' as const, 'warn' as const] };
  if (adapter === 'express') return NestFactory.create(benchModule(auth), options);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(benchModule(auth), new FastifyAdapter(), options);
}

/** Verifies `token` `iterations` times with a verifier of its own (keys fetched once, before timing); µs per call. */
async function verifyMicro(auth: McpAuthOptions, token: string, iterations: number): Promise<{ verifyUs: number }> {
  const verifier = new JwtTokenVerifier(auth);
  for (let index = 0; index < 200; index++) await verifier.verify(token); // warm-up, and the JWKS fetch
  const started = performance.now();
  for (let index = 0; index < iterations; index++) await verifier.verify(token);
  return { verifyUs: ((performance.now() - started) * 1000) / iterations };
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const auth = authOptions();
  const app = await createApp(args.adapter, auth);
  await app.listen(args.port, HOST);
  const address = app.getHttpServer().address() as { port: number };
  announce({
    name: `nest-mcp (${args.adapter}, ${auth ? 'with auth' : 'without auth'})`,
    port: address.port,
    close: () => app.close(),
    commands: {
      'verify-micro': (input) => {
        if (!auth) throw new Error('verify-micro needs --issuer');
        const { token, iterations } = input as { token: string; iterations: number };
        return verifyMicro(auth, token, iterations);
      },
    },
  });
}

runMain(main);
