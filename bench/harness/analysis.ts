import type { RatioRow, RunResult, TargetRow } from './result.interface.js';
import { SERVERS, type ServerId } from './servers.js';
import { median, pairedRatio } from './stats.js';

/** Ratios against the baselines of the same run, and the issue 7 targets checked against them. */

interface EchoPair {
  subject: ServerId;
  baseline: ServerId;
  target?: number;
}

export const ECHO_PAIRS: EchoPair[] = [
  { subject: 'nest-mcp-express', baseline: 'nest-express', target: 0.85 },
  { subject: 'nest-mcp-express', baseline: 'sdk', target: 2 },
  { subject: 'nest-mcp-express', baseline: 'rekog-express', target: 2 },
  { subject: 'nest-mcp-fastify', baseline: 'sdk', target: 4 },
  { subject: 'nest-mcp-fastify', baseline: 'node-http', target: 0.5 },
  { subject: 'nest-mcp-fastify', baseline: 'nest-fastify' },
  { subject: 'nest-mcp-express', baseline: 'node-http' },
  // Context: how far the floors themselves are from the peers (the headroom the targets above leave).
  { subject: 'nest-express', baseline: 'sdk' },
  { subject: 'nest-fastify', baseline: 'sdk' },
  { subject: 'nest-fastify', baseline: 'node-http' },
  // With `--baseline DIR`: this checkout against the other one, in the same run.
  { subject: 'nest-mcp-express', baseline: 'baseline-express' },
  { subject: 'nest-mcp-fastify', baseline: 'baseline-fastify' },
];

export const STREAM_PAIRS: EchoPair[] = [
  { subject: 'nest-mcp-express', baseline: 'nest-express', target: 1.5 },
  { subject: 'nest-mcp-fastify', baseline: 'nest-fastify', target: 1.5 },
  { subject: 'nest-mcp-express', baseline: 'sdk' },
  { subject: 'nest-mcp-express', baseline: 'rekog-express' },
  { subject: 'nest-mcp-express', baseline: 'baseline-express' },
  { subject: 'nest-mcp-fastify', baseline: 'baseline-fastify' },
];

export const NOTIFICATIONS_TARGET = 150_000;
export const RSS_GROWTH_TARGET_MB = 15;
/** "Back near baseline after idle", read as: RSS after idle within this much of the pre-load reading. */
export const IDLE_NEAR_BASELINE_MB = 5;
export const LISTEN_TARGET_KB = 30;

const name = (id: ServerId) => SERVERS[id].label;
const fmt = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');

export function echoRatio(
  result: RunResult,
  pair: EchoPair,
  concurrency: number,
  field: 'rps' | 'cpuUsPerCall' = 'rps',
): number {
  const a = result.echo?.rounds[pair.subject]?.[String(concurrency)];
  const b = result.echo?.rounds[pair.baseline]?.[String(concurrency)];
  if (!a || !b) return Number.NaN;
  return pairedRatio(
    a.map((cell) => cell[field]),
    b.map((cell) => cell[field]),
  );
}

export function streamRatio(result: RunResult, pair: EchoPair, count: number): number {
  const a = result.stream?.rounds[pair.subject]?.[String(count)];
  const b = result.stream?.rounds[pair.baseline]?.[String(count)];
  if (!a || !b) return Number.NaN;
  return pairedRatio(
    a.map((cell) => cell.notificationsPerSec),
    b.map((cell) => cell.notificationsPerSec),
  );
}

export function computeRatios(result: RunResult): RatioRow[] {
  const rows: RatioRow[] = [];
  for (const pair of ECHO_PAIRS) {
    for (const concurrency of result.echo?.concurrencies ?? []) {
      const value = echoRatio(result, pair, concurrency);
      if (Number.isFinite(value))
        rows.push({
          name: `${name(pair.subject)} / ${name(pair.baseline)}`,
          metric: `echo c=${concurrency} req/s`,
          value,
        });
      const cpu = echoRatio(result, pair, concurrency, 'cpuUsPerCall');
      if (Number.isFinite(cpu))
        rows.push({
          name: `${name(pair.subject)} / ${name(pair.baseline)}`,
          metric: `echo c=${concurrency} CPU per call`,
          value: cpu,
        });
    }
  }
  for (const pair of STREAM_PAIRS) {
    for (const count of result.stream?.counts ?? []) {
      const value = streamRatio(result, pair, count);
      if (Number.isFinite(value))
        rows.push({
          name: `${name(pair.subject)} / ${name(pair.baseline)}`,
          metric: `${count} progress notifications/s`,
          value,
        });
    }
  }
  if (result.mrtr) {
    for (const [id, cell] of Object.entries(result.mrtr.medians)) {
      const rounds = result.mrtr.rounds[id as ServerId] ?? [];
      const p50 = (kind: 'seal' | 'replay') =>
        pairedRatio(
          rounds.map((round) => round[kind].p50Ms),
          rounds.map((round) => round.plain.p50Ms),
        );
      rows.push({
        name: `${name(id as ServerId)}: MRTR round 1 (seal) / plain call`,
        metric: 'p50 latency',
        value: p50('seal'),
      });
      rows.push({
        name: `${name(id as ServerId)}: MRTR round 2 (open + replay) / plain call`,
        metric: 'p50 latency',
        value: p50('replay'),
      });
      rows.push({
        name: `${name(id as ServerId)}: MRTR round trip (both rounds) / plain call`,
        metric: 'p50 latency',
        value: (cell.seal.p50Ms + cell.replay.p50Ms) / cell.plain.p50Ms,
      });
    }
  }
  if (result.tasks) {
    for (const id of Object.keys(result.tasks.medians)) {
      const rounds = result.tasks.rounds[id as ServerId] ?? [];
      const paired = (
        subject: (round: (typeof rounds)[number]) => number,
        baseline: (round: (typeof rounds)[number]) => number,
      ) => pairedRatio(rounds.map(subject), rounds.map(baseline));
      const label = name(id as ServerId);
      const add = (row: RatioRow) => Number.isFinite(row.value) && rows.push(row);
      add({
        name: `${label}: task round trip / plain echo call`,
        metric: 'per second',
        value: paired(
          (r) => r.roundTrip.rps,
          (r) => r.plainLoop.rps,
        ),
      });
      add({
        name: `${label}: task round trip / plain echo call`,
        metric: 'p50 latency',
        value: paired(
          (r) => r.roundTrip.p50Ms,
          (r) => r.plainLoop.p50Ms,
        ),
      });
      add({
        name: `${label}: tasks/get (completed) / plain echo call`,
        metric: 'req/s',
        value: paired(
          (r) => r.get.rps,
          (r) => r.plain.rps,
        ),
      });
    }
  }
  if (result.bootstrap) {
    const boot = result.bootstrap.rounds;
    const ratio = (a: string, b: string, field: 'bootMs' | 'listAllMs') =>
      boot[a] && boot[b]
        ? pairedRatio(
            boot[a].map((cell) => cell[field]),
            boot[b].map((cell) => cell[field]),
          )
        : Number.NaN;
    const tools = result.bootstrap.tools;
    const add = (label: string, metric: string, value: number) =>
      Number.isFinite(value) && rows.push({ name: label, metric, value });
    add(
      `nest-mcp (Express) ${tools} tools / 3 tools`,
      'boot time',
      ratio('nest-mcp-express-many', 'nest-mcp-express-3', 'bootMs'),
    );
    add(
      `nest-mcp (Express) ${tools} tools / bare Nest (Express)`,
      'boot time',
      ratio('nest-mcp-express-many', 'nest-express', 'bootMs'),
    );
    add(
      `nest-mcp (Express) / official SDK v2, ${tools} tools`,
      `tools/list of all ${tools}: time`,
      ratio('nest-mcp-express-many', 'sdk-many', 'listAllMs'),
    );
    add(
      `nest-mcp (Fastify) / official SDK v2, ${tools} tools`,
      `tools/list of all ${tools}: time`,
      ratio('nest-mcp-fastify-many', 'sdk-many', 'listAllMs'),
    );
  }
  return rows;
}

function check(row: Omit<TargetRow, 'met'>): TargetRow {
  return { ...row, met: row.measured.length > 0 && row.measured.every((item) => item.met) };
}

export function computeTargets(result: RunResult): TargetRow[] {
  const rows: TargetRow[] = [];
  const concurrencies = result.echo?.concurrencies ?? [];
  for (const pair of ECHO_PAIRS.filter((candidate) => candidate.target !== undefined)) {
    const measured = concurrencies
      .map((concurrency) => ({ where: `c=${concurrency}`, value: echoRatio(result, pair, concurrency) }))
      .filter((item) => Number.isFinite(item.value))
      .map((item) => ({ ...item, met: item.value >= (pair.target as number) }));
    // The same comparison on a CPU basis (baseline µs/call ÷ subject µs/call): what the req/s ratio would be if both
    // were CPU-bound on an otherwise idle machine. Less sensitive to neighbours' load; shown, not judged.
    const cpuBasis = concurrencies
      .map((concurrency) => `c=${concurrency} ${fmt(1 / echoRatio(result, pair, concurrency, 'cpuUsPerCall'))}`)
      .join(', ');
    rows.push(
      check({
        name: `echo req/s: ${name(pair.subject)} vs ${name(pair.baseline)}`,
        target: `≥ ${fmt(pair.target as number)}`,
        measured,
        note: measured.length ? `CPU basis: ${cpuBasis}` : undefined,
      }),
    );
  }
  const counts = result.stream?.counts ?? [];
  for (const id of ['nest-mcp-express', 'nest-mcp-fastify'] as ServerId[]) {
    const cells = result.stream?.medians[id];
    const measured = counts
      .map((count) => ({ where: `n=${count}`, value: cells?.[String(count)]?.notificationsPerSec ?? Number.NaN }))
      .filter((item) => Number.isFinite(item.value))
      .map((item) => ({ ...item, met: item.value >= NOTIFICATIONS_TARGET }));
    rows.push(
      check({
        name: `progress notifications/s to one client: ${name(id)}`,
        target: `≥ ${NOTIFICATIONS_TARGET.toLocaleString('en-US')}/s`,
        measured,
      }),
    );
  }
  for (const pair of STREAM_PAIRS.filter((candidate) => candidate.target !== undefined)) {
    const measured = counts
      .map((count) => ({ where: `n=${count}`, value: streamRatio(result, pair, count) }))
      .filter((item) => Number.isFinite(item.value))
      .map((item) => ({ ...item, met: item.value >= (pair.target as number) }));
    rows.push(
      check({
        name: `progress notifications/s: ${name(pair.subject)} vs ${name(pair.baseline)} streaming the same frames`,
        target: `≥ ${fmt(pair.target as number)}`,
        measured,
      }),
    );
  }
  for (const id of ['nest-mcp-express', 'nest-mcp-fastify'] as ServerId[]) {
    const cells = result.memory?.rounds[id];
    if (!cells) {
      rows.push(
        check({
          name: `RSS growth over 50,000 calls: ${name(id)}`,
          target: `≤ ${RSS_GROWTH_TARGET_MB} MB`,
          measured: [],
        }),
      );
      continue;
    }
    const calls = result.memory?.calls ?? 0;
    const growth = median(cells.map((cell) => cell.growthMb));
    const idle = median(cells.map((cell) => cell.idleGrowthMb));
    const floor = result.memory?.medians['nest-express'];
    const floorNote = floor
      ? `; bare Nest (Express): +${floor.growthMb.toFixed(1)} MB, +${floor.idleGrowthMb.toFixed(1)} MB after idle`
      : '';
    const afterGc = median(cells.map((cell) => cell.rssAfterGcMb - cell.rssBeforeMb));
    const gcNote = `after forced GC ${afterGc >= 0 ? '+' : ''}${afterGc.toFixed(1)} MB`;
    rows.push(
      check({
        name: `RSS growth over ${calls.toLocaleString('en-US')} calls: ${name(id)}`,
        target: `≤ ${RSS_GROWTH_TARGET_MB} MB`,
        measured: [{ where: `${calls} calls`, value: growth, met: growth <= RSS_GROWTH_TARGET_MB }],
        note: `${calls < 50_000 ? `quick run: ${calls} calls, not the 50,000 of the target; ` : ''}${gcNote}${floorNote}`,
      }),
    );
    rows.push(
      check({
        name: `RSS back near baseline after ${result.memory?.idleSeconds} s idle: ${name(id)}`,
        target: `≤ +${IDLE_NEAR_BASELINE_MB} MB`,
        measured: [{ where: 'after idle, no forced GC', value: idle, met: idle <= IDLE_NEAR_BASELINE_MB }],
        note: `"near" read as within ${IDLE_NEAR_BASELINE_MB} MB of the pre-load RSS; ${gcNote}${floorNote}`,
      }),
    );
  }
  for (const id of ['nest-mcp-express', 'nest-mcp-fastify'] as ServerId[]) {
    const cell = result.listen?.medians[id];
    rows.push(
      check({
        name: `memory per idle listen stream: ${name(id)}`,
        target: `≤ ${LISTEN_TARGET_KB} KB`,
        measured: cell
          ? [
              {
                where: `${cell.streams} streams, RSS after GC`,
                value: cell.rssKbPerStream,
                met: cell.rssKbPerStream <= LISTEN_TARGET_KB,
              },
            ]
          : [],
        note: cell && cell.streams < 10_000 ? `quick run: ${cell.streams} streams, not 10,000` : undefined,
      }),
    );
  }
  return rows;
}
