import { verifyEcho } from '../fleet.js';
import { postJson } from '../http-client.js';
import { runLoad } from '../load.js';
import type { BenchOptions } from '../options.js';
import { log, rotate } from '../progress-log.js';
import type { MrtrCell, MrtrResults } from '../result.interface.js';
import { ServerProcess } from '../server-process.js';
import { SERVERS, type ServerId } from '../servers.js';
import { median } from '../stats.js';
import { toolCall, type WireRequest } from '../wire.js';

export const MRTR_SERVERS: ServerId[] = ['nest-mcp-express', 'nest-mcp-fastify'];
const CONCURRENCY = 16;

interface RoundOne {
  result?: { resultType?: string; requestState?: string; inputRequests?: Record<string, unknown> };
}

/**
 * A Multi Round-Trip Request on nest-mcp: `confirm` asks one question. Three request kinds are loaded in turn at
 * concurrency 16: a plain `echo` call, round 1 of `confirm` (the handler asks; the answer is `input_required` with a
 * freshly sealed requestState) and round 2 (the retry carrying the answer and the state: the state is opened and the
 * handler replayed to completion). A state is valid for 5 minutes and not single-use, so round 2 can be repeated
 * with the same body. Also measures seal and open alone, in the server process.
 */
export async function runMrtr(ids: readonly ServerId[], options: BenchOptions): Promise<MrtrResults> {
  const results: MrtrResults = { concurrency: CONCURRENCY, rounds: {}, medians: {}, codec: {} };
  const servers = new Map<ServerId, ServerProcess>();
  try {
    await Promise.all(
      ids.map(async (id) => servers.set(id, await ServerProcess.start(SERVERS[id].label, SERVERS[id].launch))),
    );
    const requests = new Map<ServerId, Record<'plain' | 'seal' | 'replay', WireRequest>>();
    for (const id of ids) {
      const server = servers.get(id) as ServerProcess;
      const url = server.url(SERVERS[id].echoPath);
      await verifyEcho(SERVERS[id], server);
      const seal = toolCall(1, 'confirm', {});
      const first = await postJson(url, seal);
      const state = (first.json as RoundOne | undefined)?.result;
      if (state?.resultType !== 'input_required' || typeof state.requestState !== 'string') {
        throw new Error(`${id}: round 1 of confirm answered ${first.status} ${first.text.slice(0, 300)}`);
      }
      const replay = toolCall(
        2,
        'confirm',
        {},
        {},
        {
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
          requestState: state.requestState,
        },
      );
      const second = await postJson(url, replay);
      const text = (second.json as { result?: { content?: { text?: string }[] } } | undefined)?.result?.content?.[0]
        ?.text;
      if (text !== 'confirmed')
        throw new Error(`${id}: round 2 of confirm answered ${second.status} ${second.text.slice(0, 300)}`);
      requests.set(id, { plain: toolCall(3, 'echo', { text: 'hello' }), seal, replay });
      results.codec[id] = await server.request('mrtr-micro', { iterations: options.mode === 'quick' ? 5_000 : 20_000 });
    }
    const kinds = ['plain', 'seal', 'replay'] as const;
    for (const id of ids) {
      for (const kind of kinds) {
        await runLoad({
          url: (servers.get(id) as ServerProcess).url(SERVERS[id].echoPath),
          request: requests.get(id)![kind],
          connections: CONCURRENCY,
          seconds: options.warmupSeconds / 2,
        });
      }
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const id of rotate(ids, round)) {
        const url = (servers.get(id) as ServerProcess).url(SERVERS[id].echoPath);
        const cell = {} as MrtrCell;
        for (const kind of kinds) {
          const load = await runLoad({
            url,
            request: requests.get(id)![kind],
            connections: CONCURRENCY,
            seconds: options.mrtrSeconds,
          });
          if (load.failures > 0) log(`  warning: ${id} ${kind}: ${load.failures} failed requests`);
          cell[kind] = { rps: load.rps, p50Ms: load.p50Ms, p99Ms: load.p99Ms };
        }
        (results.rounds[id] ??= []).push(cell);
        log(
          `mrtr round ${round + 1}/${options.rounds} ${id}: plain ${Math.round(cell.plain.rps)}, seal ${Math.round(cell.seal.rps)}, replay ${Math.round(cell.replay.rps)} req/s`,
        );
      }
    }
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
  for (const id of ids) {
    const cells = results.rounds[id] ?? [];
    const pick = (kind: keyof MrtrCell) => ({
      rps: median(cells.map((cell) => cell[kind].rps)),
      p50Ms: median(cells.map((cell) => cell[kind].p50Ms)),
      p99Ms: median(cells.map((cell) => cell[kind].p99Ms)),
    });
    results.medians[id] = { plain: pick('plain'), seal: pick('seal'), replay: pick('replay') };
  }
  return results;
}
