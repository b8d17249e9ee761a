import type { BenchOptions } from '../options.js';
import { renderPaired, runPaired } from '../paired.js';
import type { PairedResults } from '../paired-result.interface.js';
import type { ServerProcess } from '../server-process.js';
import { toolCall, type WireRequest } from '../wire.js';

const SCRIPT = 'nest-mcp-ecosystem.server.js';

/** Checks that a server answers `request` with a result (not an error) before it is measured. */
async function answers(server: ServerProcess, request: WireRequest, expected: string): Promise<void> {
  const answer = await fetch(server.url('/mcp'), { method: 'POST', headers: request.headers, body: request.body });
  const text = await answer.text();
  if (answer.status !== 200 || !text.includes(expected))
    throw new Error(`${server.label}: answered ${answer.status}: ${text.slice(0, 300)}`);
}

/**
 * The `cache` workload (issue #30): the read-only `lookup` tool (about 0.1 ms of work per call) with
 * `McpCacheInterceptor` on `@nestjs/cache-manager`'s memory store — every call after the first a hit — against the
 * same server without a cache.
 */
export function runCache(options: BenchOptions): Promise<PairedResults> {
  return runPaired(
    {
      name: 'cache',
      script: SCRIPT,
      subject: { label: 'McpCacheInterceptor (memory)', args: ['--with', 'cache'] },
      baseline: { label: 'no cache', args: ['--with', 'none'] },
      tool: 'lookup',
      request: toolCall(1, 'lookup', { query: 'sku' }),
      verify: (server, request) => answers(server, request, '"rows"'),
    },
    options,
  );
}

/**
 * The `throttler` workload (issue #30): `echo` behind `@nestjs/throttler`'s global guard (memory storage,
 * `mcpThrottlerOptions`, a limit the run never reaches) against the same server without the guard.
 */
export function runThrottler(options: BenchOptions): Promise<PairedResults> {
  return runPaired(
    {
      name: 'throttler',
      script: SCRIPT,
      subject: { label: 'ThrottlerGuard (memory)', args: ['--with', 'throttler'] },
      baseline: { label: 'no guard', args: ['--with', 'none'] },
      tool: 'echo',
      request: toolCall(1, 'echo', { text: 'hello' }),
      verify: (server, request) => answers(server, request, '"hello"'),
    },
    options,
  );
}

/** The `cache` results as a Markdown table. */
export const renderCache = (results: PairedResults): string => renderPaired('Caching', results);

/** The `throttler` results as a Markdown table. */
export const renderThrottler = (results: PairedResults): string => renderPaired('Rate limits', results);
