import { echoRatio, ECHO_PAIRS, streamRatio, STREAM_PAIRS } from './analysis.js';
import type { RunResult } from './result.interface.js';
import { SCALE_OUT_BEGIN, SCALE_OUT_END, scaleOutDocsSection } from './scale-out-report.js';

/**
 * The hand-maintained parts of docs/performance.md, written once when the file does not exist. Later runs only
 * replace the generated block between the markers, so the lead's notes (notably "What each optimization bought")
 * survive.
 */

const times = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');
const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–');
const dec = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** The headline numbers of a run, as one row of the "what each optimization bought" table. */
export function headlineHeader(): string {
  return [
    '| change | Express / bare Nest | Express / SDK | Express / rekog | Fastify / SDK | Fastify / node:http | CPU µs/call Express · Fastify | notif/s Express (× bare Nest) | RSS growth MB | KB / listen stream | run |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ].join('\n');
}

export function headlineRow(result: RunResult, change: string, runFile: string): string {
  const c = 16;
  const pair = (subject: string, baseline: string) =>
    ECHO_PAIRS.find((item) => item.subject === subject && item.baseline === baseline)!;
  const cpu = (id: 'nest-mcp-express' | 'nest-mcp-fastify') =>
    result.echo?.medians[id]?.[String(c)]?.cpuUsPerCall ?? Number.NaN;
  const top = result.stream?.counts.at(-1) ?? 10_000;
  const notifications = result.stream?.medians['nest-mcp-express']?.[String(top)]?.notificationsPerSec ?? Number.NaN;
  const streamVsFloor = streamRatio(result, STREAM_PAIRS[0], top);
  const growth = (id: 'nest-mcp-express' | 'nest-mcp-fastify') => result.memory?.medians[id]?.growthMb ?? Number.NaN;
  const listen = (id: 'nest-mcp-express' | 'nest-mcp-fastify') =>
    result.listen?.medians[id]?.rssKbPerStream ?? Number.NaN;
  return `| ${change} | ${[
    times(echoRatio(result, pair('nest-mcp-express', 'nest-express'), c)),
    times(echoRatio(result, pair('nest-mcp-express', 'sdk'), c)),
    times(echoRatio(result, pair('nest-mcp-express', 'rekog-express'), c)),
    times(echoRatio(result, pair('nest-mcp-fastify', 'sdk'), c)),
    times(echoRatio(result, pair('nest-mcp-fastify', 'node-http'), c)),
    `${int(cpu('nest-mcp-express'))} · ${int(cpu('nest-mcp-fastify'))}`,
    `${int(notifications)} (${times(streamVsFloor)})`,
    `${dec(growth('nest-mcp-express'))} · ${dec(growth('nest-mcp-fastify'))}`,
    `${dec(listen('nest-mcp-express'))} · ${dec(listen('nest-mcp-fastify'))}`,
    `\`${runFile}\` (${result.meta.mode})`,
  ].join(' | ')} |`;
}

export function docsTemplate(block: string, result: RunResult, runFile: string): string {
  return `# Performance

nest-mcp is measured against the framework floor and against its peers, in one run on one machine. Absolute
numbers on a shared 2-core box are noise; **every figure that matters is a ratio against baselines measured in the
same run**, interleaved, so that whatever slows the machine down slows both sides of a ratio alike.

## What is compared

| server | what it is |
|---|---|
| nest-mcp (Express), nest-mcp (Fastify) | this library, default options, serving \`echo\`, \`count\` and \`confirm\` from a decorated provider; with \`--tasks\` (tasks workload) also \`echo_task\`, \`echo\` with \`task: 'optional'\` ([bench/servers/nest-mcp.server.ts](../bench/servers/nest-mcp.server.ts)) |
| bare Nest @Post (Express / Fastify) | the framework floor: a Nest 12 controller answering the same JSON bytes (and streaming the same SSE frames) with no MCP at all |
| bare node:http | the bottom floor: the same bytes from a \`node:http\` handler |
| official SDK v2 (node:http) | \`@modelcontextprotocol/server\` 2.4.0 in its fastest production setup: \`createMcpHandler(factory, { legacy: 'reject' })\` wrapped by \`toNodeHandler\` on \`node:http\`, loopback Host/Origin guards in front; one \`McpServer\` per request, as the SDK designs it |
| @rekog/mcp-nest (Express) | \`@rekog/mcp-nest\` 2.0.5: \`McpStrategy\` + \`StreamableHttpTransport\` (stateless; 2026-07-28 requests go to the SDK's \`createMcpHandler\`) |

All of them speak the 2026-07-28 wire (checked before every run: \`echo\` must answer its text and \`count\` must
stream n notifications then its result). Requests carry \`MCP-Protocol-Version\`, \`Mcp-Method\`, \`Mcp-Name\` and the
\`_meta\` envelope (protocol version, client capabilities, client info).

## Method

- Every server runs in its own child process on 127.0.0.1; load is generated in the harness process (autocannon,
  closed loop, keep-alive). Client and servers share the machine's cores, so they are not isolated from each other
  or from anything else running.
- Rounds are interleaved (A B C … A B C …; each round starts one server later), and each cell is measured in
  every round. Tables show **medians over the rounds**; a ratio is the **median of the per-round ratios**.
- Latency percentiles come from every response (hrtime), not autocannon's 1 ms histogram. CPU per call is the
  server child's \`process.cpuUsage()\` (user + system) over the cell, divided by the calls completed.
- Notifications/s counts the frames the client actually received during one call; nest-mcp coalesces progress for
  a slow reader (bounded queue), and coalesced frames are not credited.
- Memory, listen streams, MRTR, tasks and bootstrap use fresh processes. Servers run with \`--expose-gc\`, used only for the
  readings labelled "after GC".

## How to reproduce

\`\`\`sh
npm ci
npm run bench                 # full run (~20 min on 2 cores): writes bench/results/<time>-full.json and this file
npm run bench -- --quick      # smoke run (~2 min): short cells, fewer calls/streams; does not touch this file
npm run bench -- --quick --docs                 # … and update this file anyway
npm run bench -- --only echo,stream --rounds 7  # some workloads, more rounds
npm run bench -- --profile express              # CPU profile of nest-mcp under echo load: self time by owner, frame, file
npm run bench -- --profile nest-fastify         # … of a floor, to compare per call
npm run bench -- --profile fastify --profile-workload stream   # … while streaming progress
npm run bench -- --from bench/results/<file>.json   # regenerate the block below from a saved run
npm run bench:server -- --adapter fastify --port 3100   # one nest-mcp bench server, for outside tools
\`\`\`

\`npm run bench\` compiles \`bench/\` and \`libs/mcp/src\` with tsc into \`dist/bench\` when sources changed, so it always
measures the current library. \`--help\` lists every option. Every run writes its raw numbers (every round of every
cell) to \`bench/results/\`.

## Latest run

${block}

${scaleOutDocsSection(`${SCALE_OUT_BEGIN}\n\n${SCALE_OUT_END}`)}
## What each optimization bought

For the lead to fill: one row per optimization of the hot path (issue 7, item 4), each from a full run, with the
commit. The first row is the baseline measured before any optimization.

${headlineHeader()}
${headlineRow(result, 'baseline (before optimization)', runFile)}
`;
}
