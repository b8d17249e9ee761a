#!/usr/bin/env node
/**
 * `npm run soak`: a long load run against a real server in a child process (the conformance fixture,
 * apps/conformance, on Express), mixing the three kinds of traffic the library serves:
 *
 * - JSON calls      `tools/call test_simple_text`: one `application/json` answer;
 * - streaming calls `tools/call test_tool_with_progress` with a progress token: three progress frames and the
 *                   result on one SSE stream (~150 ms each);
 * - MRTR rounds     `tools/call test_input_required_result_elicitation`: `input_required` with a sealed
 *                   `requestState`, then the retry with the answer, which must complete.
 *
 * Every answer is checked (status, content type, ids, frames, final text). Every `--report-every` the run prints
 * requests, errors, latency (p50/p99/max per HTTP request) and the server's RSS. At the end it stops the server with
 * SIGTERM and exits non-zero if any request failed, if the server logged an ERROR line (unless
 * `--allow-server-errors`), if it did not exit cleanly, or if its RSS grew by more than `--rss-growth-mb` between the
 * end of the warm-up and the end of the run.
 *
 * Usage: `node scripts/soak.mjs --help` (the text is USAGE below). Durations take a unit (`1500ms`, `30s`, `10m`,
 * `1h`); a bad or unknown option stops the script with exit code 2 before anything is built or started.
 *
 * The fixture is built first (`nest build conformance`) when its build is missing or older than its sources.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'dist/apps/conformance/apps/conformance/src/main.js');
const NEST_CLI = join(ROOT, 'node_modules/.bin/nest');
const SOURCES = ['apps/conformance/src', 'libs/mcp/src'].map((dir) => join(ROOT, dir));
const CONFIGS = ['tsconfig.json', 'apps/conformance/tsconfig.app.json', 'nest-cli.json'].map((file) =>
  join(ROOT, file),
);
const PROTOCOL_VERSION = '2026-07-28';
const REQUEST_TIMEOUT_MS = 30_000;

const log = (message) => console.log(`[soak] ${message}`);

const USAGE = `usage: npm run soak -- [options]     (node scripts/soak.mjs [options])

A long load run against the conformance fixture on Express: JSON calls, streaming calls with progress, and MRTR
rounds, every answer checked. Fails on a failed request, a server ERROR line, an unclean exit, or RSS growth.

options (durations take a unit: 1500ms, 30s, 10m, 1h)
  --duration <d>         how long to run (default 10m); under 2m is the short mode for CI (reports every 5s,
                         warm-up 10s)
  --concurrency <n>      requests in flight (default 64)
  --report-every <d>     how often to print a report (default 30s, 5s in short mode)
  --warmup <d>           time before the RSS baseline is taken (default 60s, 10s in short mode)
  --rss-growth-mb <n>    the most the server's RSS may grow after the warm-up (default 64)
  --mix <j,s,m>          weights of JSON, streaming and MRTR calls (default 50,25,25)
  --seed <n>             the seed of the traffic mix (default 1)
  --allow-server-errors  do not fail on ERROR lines of the server
  -h, --help             print this help and exit

examples
  npm run soak -- --duration 30s
  npm run soak -- --duration 3m --concurrency 32 --mix 60,20,20 --rss-growth-mb 48 --seed 7`;

/** A mistake in the command line: reported with a pointer to --help, exit code 2. */
class UsageError extends Error {}

// ---------------------------------------------------------------------------------------------------------------
// Options

/** `1500ms`, `30s`, `3m`, `1h` (a unit is required: a bare `60` would be 60 ms to one reader and 60 s to another). */
function parseDuration(text, option) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(text).trim());
  if (!match || Number(match[1]) <= 0)
    throw new UsageError(`--${option} takes a duration with a unit, such as 30s, 10m or 1h (got "${text}")`);
  return Math.round(Number(match[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2]]);
}

/** A whole number of at least `min`. */
function parseCount(text, option, min) {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw new UsageError(`--${option} takes a whole number of at least ${min} (got "${text}")`);
  return value;
}

const VALUE_OPTIONS = ['duration', 'concurrency', 'report-every', 'warmup', 'rss-growth-mb', 'mix', 'seed'];
const FLAGS = ['allow-server-errors', 'help'];

/** The options of the command line, or `{ help: true }`; throws `UsageError` on a mistake. */
function parseArgs(argv) {
  const options = {};
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] === '-h' ? '--help' : argv[index];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (FLAGS.includes(name)) {
      if (inline !== undefined && inline !== 'true' && inline !== 'false')
        throw new UsageError(`--${name} takes no value`);
      options[name] = inline ?? 'true';
    } else if (VALUE_OPTIONS.includes(name)) {
      const value = inline ?? argv[++index];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      options[name] = value;
    } else {
      throw new UsageError(`unknown option "${arg}"`);
    }
  }
  if (options.help === 'true') return { help: true };
  const duration = parseDuration(options.duration ?? '10m', 'duration');
  const short = duration < 120_000;
  const mix = (options.mix ?? '50,25,25').split(',').map(Number);
  if (mix.length !== 3 || mix.some((weight) => !(weight >= 0)) || mix.every((weight) => weight === 0)) {
    throw new UsageError('--mix takes three weights, json,streaming,mrtr, not all zero (such as 50,25,25)');
  }
  return {
    duration,
    short,
    concurrency: parseCount(options.concurrency ?? '64', 'concurrency', 1),
    reportEvery: parseDuration(options['report-every'] ?? (short ? '5s' : '30s'), 'report-every'),
    warmup: parseDuration(options.warmup ?? (short ? '10s' : '60s'), 'warmup'),
    rssGrowthMb: parseCount(options['rss-growth-mb'] ?? '64', 'rss-growth-mb', 0),
    allowServerErrors: options['allow-server-errors'] !== undefined && options['allow-server-errors'] !== 'false',
    mix,
    seed: parseCount(options.seed ?? '1', 'seed', 0),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Building and starting the fixture

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && !entry.name.endsWith('.spec.ts'))
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function buildIfStale() {
  const built = existsSync(ENTRY) ? statSync(ENTRY).mtimeMs : 0;
  const sources = Math.max(...SOURCES.map(newestMtime), ...CONFIGS.map(newestMtime));
  if (built >= sources) return;
  log('building the conformance fixture: nest build conformance');
  execFileSync(NEST_CLI, ['build', 'conformance'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Starts the fixture on a free loopback port; resolves with the child and the endpoint URL. */
function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The server's error log is part of the verdict: a correct workload must not make it log errors.
    child.errorLines = 0;
    child.errorSamples = [];
    let pending = '';
    child.stderr.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
        if (!/\bERROR\b/.test(plain)) continue;
        child.errorLines++;
        if (child.errorSamples.length < 3) child.errorSamples.push(plain.trim().slice(0, 200));
      }
    });
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`the server did not start within 30 s; output: ${output}`)),
      30_000,
    );
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout.resume();
        resolve({ child, url: new URL(match[1]) });
      }
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the server exited during startup (${code ?? signal}); output: ${output}`)),
    );
  });
}

/** Resident set size of a process in bytes (Linux /proc, else `ps`). */
function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux, or the process is gone
  }
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
  } catch {
    return Number.NaN;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

/** Latencies in log-spaced buckets (~1 % resolution): bounded memory however long the run. */
class Histogram {
  static BASE = Math.log(1.01);
  constructor() {
    this.counts = new Map();
    this.count = 0;
    this.max = 0;
  }
  record(ms) {
    const bucket = Math.max(0, Math.ceil(Math.log(Math.max(ms, 0.01) / 0.01) / Histogram.BASE));
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + 1);
    this.count++;
    if (ms > this.max) this.max = ms;
  }
  percentile(p) {
    if (this.count === 0) return 0;
    const target = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (const bucket of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(bucket);
      if (seen >= target) return 0.01 * Math.exp(bucket * Histogram.BASE);
    }
    return this.max;
  }
}

const KINDS = ['json', 'streaming', 'mrtr'];

class Stats {
  constructor() {
    this.requests = 0;
    this.operations = Object.fromEntries(KINDS.map((kind) => [kind, 0]));
    this.errors = 0;
    this.latency = new Histogram();
    /** Per kind of request: a streaming call takes ~150 ms by design, so one p99 would hide the other two. */
    this.byKind = Object.fromEntries(KINDS.map((kind) => [kind, new Histogram()]));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Traffic

/** A small deterministic PRNG (mulberry32), so a run's mix can be reproduced with --seed. */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const meta = (extra = {}) => ({
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1.0.0' },
  ...extra,
});

class SoakError extends Error {}

function check(condition, message) {
  if (!condition) throw new SoakError(message);
}

/** The `data:` payloads of an SSE body. */
function sseFrames(text) {
  return text
    .split(/\r\n\r\n|\n\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data.length > 0)
    .map((data) => JSON.parse(data));
}

function createClient(url, agent, onLatency) {
  let nextId = 1;
  /** One tools/call; resolves with status, content type and body text. */
  function call(kind, name, args, extraParams = {}, extraMeta = {}) {
    const id = nextId++;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, ...extraParams, _meta: meta(extraMeta) },
    });
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        {
          method: 'POST',
          agent,
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': PROTOCOL_VERSION,
            'mcp-method': 'tools/call',
            'mcp-name': name,
            'content-length': Buffer.byteLength(body),
          },
        },
        (incoming) => {
          const chunks = [];
          incoming.on('data', (chunk) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            onLatency(kind, performance.now() - started);
            resolve({
              id,
              status: incoming.statusCode,
              contentType: incoming.headers['content-type'] ?? '',
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new SoakError(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  return {
    async json() {
      const answer = await call('json', 'test_simple_text', {});
      check(answer.status === 200, `json: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
      check(answer.contentType.startsWith('application/json'), `json: content type ${answer.contentType}`);
      const message = JSON.parse(answer.text);
      check(message.id === answer.id, 'json: id not echoed');
      check(
        message.result?.content?.[0]?.text === 'This is a simple text response for testing.',
        `json: ${answer.text.slice(0, 200)}`,
      );
      return 1;
    },
    async streaming() {
      const answer = await call('streaming', 'test_tool_with_progress', {}, {}, { progressToken: `soak-${nextId}` });
      check(answer.status === 200, `streaming: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
      check(answer.contentType.startsWith('text/event-stream'), `streaming: content type ${answer.contentType}`);
      const frames = sseFrames(answer.text);
      const progress = frames
        .filter((frame) => frame.method === 'notifications/progress')
        .map((frame) => frame.params.progress);
      check(JSON.stringify(progress) === '[0,50,100]', `streaming: progress ${JSON.stringify(progress)}`);
      const final = frames.at(-1);
      check(
        final?.id === answer.id && final.result?.content?.[0]?.text === 'Progress test completed',
        `streaming: final ${JSON.stringify(final)?.slice(0, 200)}`,
      );
      return 1;
    },
    async mrtr() {
      const first = await call('mrtr', 'test_input_required_result_elicitation', {});
      check(first.status === 200, `mrtr round 1: HTTP ${first.status} ${first.text.slice(0, 200)}`);
      const interim = JSON.parse(first.text).result;
      check(
        interim?.resultType === 'input_required' && typeof interim.requestState === 'string',
        `mrtr round 1: ${first.text.slice(0, 200)}`,
      );
      check(
        interim.inputRequests?.user_name?.method === 'elicitation/create',
        'mrtr round 1: no user_name input request',
      );
      const name = `Soak${nextId}`;
      const second = await call(
        'mrtr',
        'test_input_required_result_elicitation',
        {},
        { requestState: interim.requestState, inputResponses: { user_name: { action: 'accept', content: { name } } } },
      );
      check(second.status === 200, `mrtr round 2: HTTP ${second.status} ${second.text.slice(0, 200)}`);
      const done = JSON.parse(second.text);
      check(
        done.id === second.id && done.result?.content?.[0]?.text === `Hello, ${name}!`,
        `mrtr round 2: ${second.text.slice(0, 200)}`,
      );
      return 2;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The run

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value) => `${value.toFixed(1)} ms`;

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`soak: ${error.message}\nRun \`npm run soak -- --help\` for the options.`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    console.log(USAGE);
    return;
  }
  buildIfStale();
  const { child, url } = await startServer();
  // Never leave the server behind, whatever happens to this process.
  process.on('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let serverExit;
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve((serverExit = { code, signal }))),
  );
  log(
    `server pid ${child.pid} at ${url}; ${options.duration / 1000} s at concurrency ${options.concurrency}, mix json/streaming/mrtr ` +
      `${options.mix.join('/')}, reports every ${options.reportEvery / 1000} s, RSS bound +${options.rssGrowthMb} MB after a ` +
      `${options.warmup / 1000} s warm-up`,
  );

  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const total = new Stats();
  let interval = new Stats();
  const errorSamples = [];
  const client = createClient(url, agent, (kind, latency) => {
    total.requests++;
    interval.requests++;
    for (const stats of [total, interval]) {
      stats.latency.record(latency);
      stats.byKind[kind].record(latency);
    }
  });
  const random = prng(options.seed);
  const weights = options.mix.map((_weight, index) =>
    options.mix.slice(0, index + 1).reduce((sum, next) => sum + next, 0),
  );
  const pick = () => {
    const roll = random() * weights[2];
    return KINDS[weights.findIndex((limit) => roll < limit)];
  };

  const startedAt = Date.now();
  let endsAt = startedAt + options.duration;
  // Ctrl+C ends the run early, with its summary.
  process.once('SIGINT', () => {
    log('interrupted: finishing the requests in flight');
    endsAt = Date.now();
  });
  const rssStart = rssOf(child.pid);
  let rssBaseline;
  let rssPeak = rssStart;

  const worker = async () => {
    while (Date.now() < endsAt && serverExit === undefined) {
      const kind = pick();
      try {
        await client[kind]();
        total.operations[kind]++;
        interval.operations[kind]++;
      } catch (error) {
        total.errors++;
        interval.errors++;
        if (errorSamples.length < 10) errorSamples.push(`${kind}: ${error.message}`);
      }
    }
  };

  const report = () => {
    const elapsed = Date.now() - startedAt;
    const rss = rssOf(child.pid);
    rssPeak = Math.max(rssPeak, rss);
    if (rssBaseline === undefined && elapsed >= options.warmup) rssBaseline = rss;
    const seconds = options.reportEvery / 1000;
    const growth =
      rssBaseline === undefined
        ? 'warming up'
        : `${rss - rssBaseline >= 0 ? '+' : ''}${mb(rss - rssBaseline)} since warm-up`;
    log(
      `t=${Math.round(elapsed / 1000)}s requests=${total.requests} (+${interval.requests}, ${(interval.requests / seconds).toFixed(0)}/s) ` +
        `ops json/streaming/mrtr=${KINDS.map((kind) => interval.operations[kind]).join('/')} errors=${total.errors} (+${interval.errors}) ` +
        `p50=${ms(interval.latency.percentile(50))} p99=${ms(interval.latency.percentile(99))} ` +
        `(p99 json/streaming/mrtr ${KINDS.map((kind) => interval.byKind[kind].percentile(99).toFixed(0)).join('/')} ms) max=${ms(interval.latency.max)} ` +
        `rss=${mb(rss)} (${growth}) server-error-logs=${child.errorLines}`,
    );
    interval = new Stats();
  };
  const reporter = setInterval(report, options.reportEvery);

  await Promise.all(Array.from({ length: options.concurrency }, worker));
  clearInterval(reporter);
  if ((Date.now() - startedAt) % options.reportEvery > options.reportEvery / 4) report();
  const rssEnd = rssOf(child.pid);
  rssPeak = Math.max(rssPeak, rssEnd);
  rssBaseline ??= rssStart;
  agent.destroy();

  // A clean stop under no load: SIGTERM, graceful shutdown, exit code 0.
  const stopAt = Date.now();
  if (serverExit === undefined) child.kill('SIGTERM');
  const stopped = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 15_000))]);
  if (!stopped) child.kill('SIGKILL');
  const stopMs = Date.now() - stopAt;

  const growth = rssEnd - rssBaseline;
  const failures = [];
  if (total.errors > 0) failures.push(`${total.errors} request(s) failed, e.g.\n  ${errorSamples.join('\n  ')}`);
  if (growth > options.rssGrowthMb * 1024 * 1024)
    failures.push(`RSS grew by ${mb(growth)} after the warm-up (bound ${options.rssGrowthMb} MB)`);
  if (child.errorLines > 0) {
    const message = `the server logged ${child.errorLines} ERROR line(s), e.g.\n  ${child.errorSamples.join('\n  ')}`;
    if (options.allowServerErrors) log(`note: ${message}`);
    else failures.push(message);
  }
  if (!stopped) failures.push('the server did not exit within 15 s of SIGTERM');
  else if (stopped.code !== 0 && stopped.signal !== 'SIGTERM')
    failures.push(`the server exited with ${stopped.code ?? stopped.signal}`);

  log('summary:');
  log(
    `  duration        ${((Date.now() - startedAt - stopMs) / 1000).toFixed(0)} s at concurrency ${options.concurrency}`,
  );
  log(
    `  operations      json ${total.operations.json}, streaming ${total.operations.streaming}, mrtr ${total.operations.mrtr} (2 requests each)`,
  );
  log(
    `  requests        ${total.requests} (${(total.requests / (options.duration / 1000)).toFixed(0)}/s), errors ${total.errors}`,
  );
  log(
    `  latency         p50 ${ms(total.latency.percentile(50))}, p99 ${ms(total.latency.percentile(99))}, max ${ms(total.latency.max)} (all requests)`,
  );
  for (const kind of KINDS) {
    const histogram = total.byKind[kind];
    log(
      `    ${kind.padEnd(13)} p50 ${ms(histogram.percentile(50))}, p99 ${ms(histogram.percentile(99))}, max ${ms(histogram.max)} (${histogram.count} requests)`,
    );
  }
  log(
    `  server RSS      start ${mb(rssStart)}, after warm-up ${mb(rssBaseline)}, end ${mb(rssEnd)}, peak ${mb(rssPeak)}; growth ${mb(growth)} (bound ${options.rssGrowthMb} MB)`,
  );
  log(`  server log      ${child.errorLines} ERROR line(s)`);
  log(`  shutdown        ${stopped ? `exit ${stopped.code ?? stopped.signal} after ${stopMs} ms` : 'killed'}`);
  if (failures.length > 0) {
    for (const failure of failures) log(`FAIL: ${failure}`);
    process.exitCode = 1;
  } else {
    log('PASS');
  }
}

main().catch((error) => {
  console.error(`[soak] ${error.stack ?? error}`);
  process.exitCode = 1;
});
