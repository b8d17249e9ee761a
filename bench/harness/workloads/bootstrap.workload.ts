import { postJson } from '../http-client.js';
import { runLoad } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate } from '../progress-log.js';
import type { BootstrapCell, BootstrapResults } from '../result.interface.js';
import { ServerProcess, type ServerLaunch } from '../server-process.js';
import { median } from '../stats.js';
import { toolsList } from '../wire.js';

const MB = 1024 * 1024;

interface Variant {
  label: string;
  launch: ServerLaunch;
  tools: number;
  /** Serves tools/list (floors do not). */
  lists: boolean;
}

function variants(tools: number, quick: boolean): Record<string, Variant> {
  const generated = ['--tools', String(tools)];
  const all: Record<string, Variant> = {
    'nest-mcp-express-many': {
      label: `nest-mcp (Express), ${tools} tools`,
      launch: { script: 'nest-mcp.server.js', args: ['--adapter', 'express', ...generated] },
      tools,
      lists: true,
    },
    'nest-mcp-express-3': {
      label: 'nest-mcp (Express), 3 tools',
      launch: { script: 'nest-mcp.server.js', args: ['--adapter', 'express'] },
      tools: 0,
      lists: true,
    },
    'nest-mcp-fastify-many': {
      label: `nest-mcp (Fastify), ${tools} tools`,
      launch: { script: 'nest-mcp.server.js', args: ['--adapter', 'fastify', ...generated] },
      tools,
      lists: true,
    },
    'nest-express': {
      label: 'bare Nest @Post (Express)',
      launch: { script: 'nest-floor.server.js', args: ['--adapter', 'express'] },
      tools: 0,
      lists: false,
    },
    'sdk-many': {
      label: `official SDK v2, ${tools} tools`,
      launch: { script: 'sdk.server.js', args: generated },
      tools,
      lists: true,
    },
  };
  // A quick run skips the Fastify variant (its boot differs from Express by the adapter only).
  if (quick) delete all['nest-mcp-fastify-many'];
  return all;
}

interface ListPage {
  result?: { tools?: unknown[]; nextCursor?: string };
}

/** Lists every tool, following cursors; returns the pages and tools seen. */
async function listAll(url: string): Promise<{ pages: number; tools: number; ms: number }> {
  const started = performance.now();
  let cursor: string | undefined;
  let pages = 0;
  let tools = 0;
  do {
    const answer = await postJson(url, toolsList(pages + 1, cursor));
    const page = answer.json as ListPage | undefined;
    if (answer.status !== 200 || !Array.isArray(page?.result?.tools))
      throw new Error(`tools/list answered ${answer.status} ${answer.text.slice(0, 200)}`);
    pages++;
    tools += page.result.tools.length;
    cursor = page.result.nextCursor;
  } while (cursor !== undefined && pages < 1_000);
  return { pages, tools, ms: performance.now() - started };
}

/**
 * Start-up of a fresh process declaring `bootstrapTools` generated tools (plus the bench tools), against the same
 * server with only the bench tools and the bare Nest floor; then listing all of them with `tools/list`.
 */
export async function runBootstrap(options: BenchOptions): Promise<BootstrapResults> {
  const all = variants(options.bootstrapTools, options.mode === 'quick');
  const ids = Object.keys(all);
  const results: BootstrapResults = {
    tools: options.bootstrapTools,
    variants: Object.fromEntries(ids.map((id) => [id, { label: all[id].label, tools: all[id].tools }])),
    rounds: {},
    medians: {},
  };
  for (let round = 0; round < options.rounds; round++) {
    const line: string[] = [];
    for (const id of rotate(ids, round)) {
      const variant = all[id];
      const server = await ServerProcess.start(variant.label, variant.launch);
      try {
        const rssMb = (await server.memory()).rss / MB;
        const cell: BootstrapCell = {
          bootMs: server.bootMs,
          spawnToReadyMs: server.spawnToReadyMs,
          rssMb,
          listAllMs: Number.NaN,
          pages: 0,
          tools: 0,
          firstPageRps: Number.NaN,
        };
        if (variant.lists) {
          const url = server.url('/mcp');
          await listAll(url);
          const listings = [];
          for (let index = 0; index < 5; index++) listings.push(await listAll(url));
          cell.listAllMs = median(listings.map((listing) => listing.ms));
          cell.pages = listings[0].pages;
          cell.tools = listings[0].tools;
          const load = await runLoad({
            url,
            request: toolsList(1),
            connections: 16,
            seconds: options.mode === 'quick' ? 0.5 : 2,
          });
          cell.firstPageRps = load.rps;
        }
        (results.rounds[id] ??= []).push(cell);
        line.push(`${id} ${Math.round(cell.bootMs)} ms`);
      } finally {
        await server.stop();
      }
    }
    log(`bootstrap round ${round + 1}/${options.rounds}: ${line.join(', ')}`);
  }
  for (const id of ids) {
    const cells = results.rounds[id] ?? [];
    const pick = (field: keyof BootstrapCell) => median(cells.map((cell) => cell[field]));
    results.medians[id] = {
      bootMs: pick('bootMs'),
      spawnToReadyMs: pick('spawnToReadyMs'),
      rssMb: pick('rssMb'),
      listAllMs: pick('listAllMs'),
      pages: pick('pages'),
      tools: pick('tools'),
      firstPageRps: pick('firstPageRps'),
    };
  }
  return results;
}
