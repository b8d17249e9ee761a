import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeRatios, computeTargets } from './analysis.js';
import { docsTemplate } from './docs-template.js';
import { Fleet, verifyCount, verifyEcho } from './fleet.js';
import { closeClientAgents } from './http-client.js';
import { type BenchOptions, parseOptions, WORKLOADS } from './options.js';
import { log } from './progress-log.js';
import { END, renderResults, runHeader, updateDocs } from './report.js';
import type { RunResult } from './result.interface.js';
import { runProfile } from './profile.js';
import { updateScaleOutDocs } from './scale-out-report.js';
import { killAllServers } from './server-process.js';
import { ALL_SERVER_IDS, SERVERS, type ServerId, useBaseline } from './servers.js';
import { prepareBaseline } from './baseline.js';
import { runBootstrap } from './workloads/bootstrap.workload.js';
import { runEcho } from './workloads/echo.workload.js';
import { LISTEN_SERVERS, runListen } from './workloads/listen.workload.js';
import { runMemory } from './workloads/memory.workload.js';
import { MRTR_SERVERS, runMrtr } from './workloads/mrtr.workload.js';
import { runStream } from './workloads/stream.workload.js';
import { runScaleOut } from './workloads/redis.workload.js';
import { runTasks, TASKS_SERVERS } from './workloads/tasks.workload.js';
import { renderAuth, runAuth } from './workloads/auth.workload.js';
import { renderCache, renderThrottler, runCache, runThrottler } from './workloads/ecosystem.workload.js';
import { renderEvents, runEvents } from './workloads/events.workload.js';
import { renderTelemetry, runTelemetry } from './workloads/telemetry.workload.js';

/** dist/bench/bench/harness → the repository root. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const DOCS = join(ROOT, 'docs', 'performance.md');

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function newResult(options: BenchOptions): RunResult {
  return {
    meta: {
      startedAt: new Date().toISOString(),
      finishedAt: '',
      mode: options.mode,
      options: { ...options, resultsDir: relative(ROOT, options.resultsDir) },
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      loadAverage: { start: loadavg(), end: [] },
      commit: git(['rev-parse', 'HEAD']) || 'unknown',
      dirty: git(['status', '--porcelain', '--', 'libs', 'bench']).length > 0,
      errors: [],
    },
    ratios: [],
    targets: [],
  };
}

/** Runs one workload; a failure is recorded and the run goes on with the next one. */
async function step(result: RunResult, name: string, work: () => Promise<void>): Promise<void> {
  const started = Date.now();
  log(`— ${name} —`);
  try {
    await work();
  } catch (error) {
    const message = `${name}: ${(error as Error)?.stack ?? String(error)}`;
    result.meta.errors.push(message);
    log(`FAILED ${message}`);
  } finally {
    killAllServers();
    log(`${name} took ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

function writeResult(result: RunResult, options: BenchOptions, suffix: string): string {
  mkdirSync(options.resultsDir, { recursive: true });
  const file = join(options.resultsDir, `${result.meta.startedAt.replace(/[:.]/g, '-')}-${suffix}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

function publish(result: RunResult, file: string, options: BenchOptions): void {
  console.log(renderResults(result, relative(ROOT, file)));
  if (options.docs) {
    // The scale-out section has a block of its own: a run of `--only redis` leaves the main block as it was.
    const main = [
      result.echo,
      result.stream,
      result.memory,
      result.listen,
      result.mrtr,
      result.tasks,
      result.bootstrap,
      result.auth,
      result.cache,
      result.throttler,
      result.telemetry,
      result.events,
    ].some(Boolean);
    if (main || !result.redis)
      updateDocs(DOCS, result, file, ROOT, (block) => docsTemplate(block, result, relative(ROOT, file)));
    if (result.redis) updateScaleOutDocs(DOCS, result, runHeader(result, relative(ROOT, file)), END);
    log(`updated ${relative(ROOT, DOCS)}`);
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), ROOT);

  if (options.from) {
    const file = resolve(process.cwd(), options.from);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
    if (saved.meta.baselineCommit) useBaseline('', saved.meta.baselineCommit);
    saved.ratios = computeRatios(saved);
    saved.targets = computeTargets(saved);
    publish(saved, file, { ...options, docs: true });
    return 0;
  }

  const baselineCommit = options.baseline ? prepareBaseline(options.baseline) : undefined;
  if (baselineCommit) log(`baseline: nest-mcp ${baselineCommit} from ${options.baseline}`);
  const result = newResult(options);
  if (baselineCommit) result.meta.baselineCommit = baselineCommit;
  const started = Date.now();

  if (options.profile) {
    await step(result, `profile (${options.profile})`, async () => {
      result.profile = await runProfile(options, ROOT);
    });
    result.meta.finishedAt = new Date().toISOString();
    result.meta.loadAverage.end = loadavg();
    const file = writeResult(result, options, `profile-${options.profile}-${options.profileWorkload}`);
    publish(result, file, { ...options, docs: false });
    return result.meta.errors.length ? 1 : 0;
  }

  log(
    `${options.mode} run: ${options.workloads.join(', ')}; ${options.rounds} rounds; servers ${options.servers.join(', ')}`,
  );
  const wants = (name: string) => (options.workloads as string[]).includes(name);

  if (wants('echo') || wants('stream')) {
    await step(result, 'echo and stream', async () => {
      const fleet = await Fleet.start(options.servers);
      try {
        for (const id of options.servers) {
          await verifyEcho(SERVERS[id], fleet.get(id));
          await verifyCount(SERVERS[id], fleet.get(id));
        }
        if (wants('echo')) result.echo = await runEcho(fleet, options.servers, options);
        if (wants('stream')) result.stream = await runStream(fleet, options.servers, options);
      } finally {
        await fleet.stop();
      }
    });
  }
  if (wants('memory')) {
    // nest-mcp, and in a full run the bare Nest floor for context (50,000 calls and an idle wait per process and
    // round make every server here cost about a minute).
    const memorySet: ServerId[] =
      options.mode === 'quick'
        ? ['nest-mcp-express', 'nest-mcp-fastify']
        : ['nest-mcp-express', 'nest-mcp-fastify', 'nest-express'];
    const ids = options.servers.filter((id) => memorySet.includes(id));
    await step(result, 'memory', async () => {
      result.memory = await runMemory(ids, options);
    });
  }
  if (wants('listen')) {
    await step(result, 'listen', async () => {
      result.listen = await runListen(LISTEN_SERVERS, options);
    });
  }
  if (wants('mrtr')) {
    await step(result, 'mrtr', async () => {
      result.mrtr = await runMrtr(MRTR_SERVERS, options);
    });
  }
  if (wants('tasks')) {
    await step(result, 'tasks', async () => {
      result.tasks = await runTasks(TASKS_SERVERS, options);
    });
  }
  if (wants('bootstrap')) {
    await step(result, 'bootstrap', async () => {
      result.bootstrap = await runBootstrap(options);
    });
  }
  if (wants('redis')) {
    result.redis = await runScaleOut(options, (name, work) => step(result, name, work));
  }
  if (wants('auth')) {
    await step(result, 'auth', async () => {
      result.auth = await runAuth(options);
      console.log(renderAuth(result.auth));
    });
  }
  if (wants('cache')) {
    await step(result, 'cache', async () => {
      result.cache = await runCache(options);
      console.log(renderCache(result.cache));
    });
  }
  if (wants('throttler')) {
    await step(result, 'throttler', async () => {
      result.throttler = await runThrottler(options);
      console.log(renderThrottler(result.throttler));
    });
  }
  if (wants('telemetry')) {
    await step(result, 'telemetry', async () => {
      result.telemetry = await runTelemetry(options);
      console.log(renderTelemetry(result.telemetry));
    });
  }

  if (wants('events')) {
    await step(result, 'events', async () => {
      result.events = await runEvents(options);
      console.log(renderEvents(result.events));
    });
  }

  result.ratios = computeRatios(result);
  result.targets = computeTargets(result);
  result.meta.finishedAt = new Date().toISOString();
  result.meta.loadAverage.end = loadavg();
  // A run of some workloads or servers only is named for what it is, so it is not mistaken for a complete one.
  const partial = options.workloads.length < WORKLOADS.length || options.servers.length < ALL_SERVER_IDS.length;
  const file = writeResult(result, options, partial ? `${options.mode}-partial` : options.mode);
  log(`run took ${((Date.now() - started) / 1000).toFixed(0)} s; results in ${relative(ROOT, file)}`);
  publish(result, file, options);
  return result.meta.errors.length ? 1 : 0;
}

main()
  .then((code) => {
    closeClientAgents();
    killAllServers();
    process.exit(code);
  })
  .catch((error: unknown) => {
    console.error(error);
    killAllServers();
    process.exit(1);
  });
