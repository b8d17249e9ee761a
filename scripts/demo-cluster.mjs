#!/usr/bin/env node
/**
 * `npm run demo:cluster`: the ops-console demo as a cluster on loopback, to try nest-mcp-redis by hand.
 *
 *   node scripts/demo-cluster.mjs [--adapter=fastify] [--otel]       (env: PORT, default 3000, 0 for a free one; ADAPTER)
 *
 * Builds the demo if stale (scripts/start-demo.mjs --build-only), then starts in a temporary directory: redis-server
 * (AOF on, a free loopback port), three demo replicas on free loopback ports with REDIS_URL and one MCP_STATE_KEYS
 * generated for this run, each with its own MCP_SESSION_ROUTE (r1, r2, r3), and nginx (Debian package) on PORT: round
 * robin without affinity, except 2025-11-25 sessions, which stick to the replica whose route starts their id. Replica logs
 * go to files in that directory (warnings and errors are echoed here). Ctrl-C stops everything — balancer, replicas
 * (gracefully), Redis — and removes the directory.
 *
 * With `--otel`, every replica runs with OpenTelemetry (apps/demo/src/observability/telemetry.setup.ts): its metrics on
 * a free loopback port of its own, scraped every second by a real Prometheus (Debian package `prometheus`) started
 * here on a free loopback port with its config and storage in a temporary directory; traces go by OTLP/HTTP wherever
 * the standard `OTEL_EXPORTER_OTLP_*` variables point (each replica is service `ops-console-replica-<n>`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNginx, waitForPort } from './cluster/nginx-balancer.mjs';
import { startPrometheus } from './cluster/prometheus-server.mjs';
import { freePort } from './free-port.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(ROOT, 'dist/apps/demo/apps/demo/src/main.js');
const REPLICAS = 3;
const LISTENING = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
const STOP_GRACE_MS = 15_000;

const adapter = (
  process.argv.find((arg) => arg.startsWith('--adapter='))?.slice('--adapter='.length) ??
  process.env.ADAPTER ??
  'express'
).toLowerCase();
if (adapter !== 'express' && adapter !== 'fastify')
  fail(`Unknown adapter "${adapter}": expected "express" or "fastify"`);
const otel = process.argv.includes('--otel');
const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number (got ${process.env.PORT})`);

/** Every child this script started, to stop them all on the way out. */
const children = new Set();
let dir;
let nginx;
let prometheus;
let stopping;

function fail(message) {
  console.error(`[demo-cluster] ${message}`);
  process.exit(1);
}

const log = (message) => console.error(`[demo-cluster] ${message}`);

/**
 * Spawns a child in its own process group (`detached`), so a terminal's Ctrl-C reaches only this script, which then
 * stops the children in order (balancer first, Redis last).
 */
function start(command, args, options = {}) {
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Ends `child` with SIGTERM, then SIGKILL after the grace period; resolves once it exited. */
async function end(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** Runs start-demo's build step (only when the build is stale); its output goes to stderr. */
async function build() {
  const child = start(process.execPath, [join(ROOT, 'scripts/start-demo.mjs'), '--build-only'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const [code, signal] = await new Promise((resolve) => child.once('exit', (...outcome) => resolve(outcome)));
  if (stopping) return;
  if (code !== 0) fail(`The demo build failed (${code ?? signal}).`);
}

async function startRedis() {
  const redisPort = await freePort();
  const child = start('redis-server', [
    '--port',
    String(redisPort),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
    '--loglevel',
    'warning',
  ]);
  child.once('error', (error) => fail(`Could not run redis-server (${error.message}): apt-get install redis-server`));
  child.stderr.pipe(process.stderr);
  await waitForPort(redisPort, 10_000);
  return { child, url: `redis://127.0.0.1:${redisPort}` };
}

/** Replica `index`'s `sessionRoute`: the start of its 2025-11-25 session ids, which nginx routes on. */
const routeOf = (index) => `r${index + 1}`;

/** Starts replica `index` and resolves with its port once it printed the URL it listens on. */
function startReplica(index, env) {
  const child = start(process.execPath, [ENTRY, ...(otel ? ['--otel'] : [])], {
    env: {
      ...process.env,
      ...env,
      MCP_SESSION_ROUTE: routeOf(index),
      ADAPTER: adapter,
      PORT: '0',
      HOST: '127.0.0.1',
      NO_COLOR: '1',
    },
  });
  const file = createWriteStream(join(dir, `replica-${index + 1}.log`));
  let pending = '';
  const onData = (chunk) => {
    file.write(chunk);
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop();
    for (const line of lines) if (/\b(WARN|ERROR)\b/.test(line)) console.error(`[replica ${index + 1}] ${line}`);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve, reject) => {
    let output = '';
    const onOutput = (chunk) => {
      output += chunk.toString();
      const match = LISTENING.exec(output);
      if (!match) return;
      child.stdout.off('data', onOutput);
      child.off('exit', onEarlyExit);
      child.once('exit', (code, signal) => {
        if (!stopping)
          log(`replica ${index + 1} (pid ${child.pid}) exited (${code ?? signal}); the others go on serving.`);
      });
      resolve({ child, port: Number(match[1]) });
    };
    const onEarlyExit = (code, signal) =>
      reject(new Error(`replica ${index + 1} exited (${code ?? signal}) before listening:\n${output}`));
    child.stdout.on('data', onOutput);
    child.stderr.on('data', (chunk) => (output += chunk.toString()));
    child.once('exit', onEarlyExit);
  });
}

/** Stops everything in order: the balancer, the replicas (gracefully), Redis; removes the directory. */
async function shutdown(code) {
  if (stopping) return stopping;
  stopping = (async () => {
    log('Stopping the balancer, the replicas and Redis…');
    await nginx?.dispose();
    await prometheus?.dispose();
    const redis = [...children].find((child) => child.spawnfile === 'redis-server');
    await Promise.all([...children].filter((child) => child !== redis).map(end));
    if (redis) await end(redis);
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void shutdown(0));
// If this script dies some other way, leave no orphan holding a port.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  nginx?.child.kill('SIGKILL');
});

async function main() {
  await build();
  dir = mkdtempSync(join(tmpdir(), 'nest-mcp-demo-cluster-'));
  const redis = await startRedis();
  const env = { REDIS_URL: redis.url, MCP_STATE_KEYS: randomBytes(32).toString('base64') };
  const metricsPorts = otel ? await Promise.all(Array.from({ length: REPLICAS }, () => freePort())) : [];
  const otelEnv = (index) => ({
    OTEL_SERVICE_NAME: `ops-console-replica-${index + 1}`,
    OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPorts[index]),
  });
  const replicas = await Promise.all(
    Array.from({ length: REPLICAS }, (_, index) => startReplica(index, otel ? { ...env, ...otelEnv(index) } : env)),
  );
  nginx = await startNginx({
    upstreams: replicas.map((replica) => replica.port),
    sessionRoutes: replicas.map((_, index) => routeOf(index)),
    port: port === 0 ? undefined : port,
  });
  if (otel)
    prometheus = await startPrometheus({
      targets: metricsPorts.map((metricsPort) => `127.0.0.1:${metricsPort}`),
      job: 'ops-console',
    });
  const url = `${nginx.url}/mcp`;
  console.log(`
ops-console cluster (${adapter}): ${REPLICAS} replicas on Redis behind nginx (round robin; 2025-11-25 sessions sticky)

  MCP endpoint   ${url}
  replicas       ${replicas.map(({ port: p, child }) => `127.0.0.1:${p} (pid ${child.pid})`).join(', ')}
  Redis          ${redis.url} (AOF on)
  health         ${replicas.map(({ port: p }) => `http://127.0.0.1:${p}/health`).join('  ')}
  logs           ${dir}/replica-*.log, nginx: ${nginx.dir}/access.log (upstream= names the replica)

Try it:
  npx nest-mcp tools ${url}
  npx nest-mcp call ${url} incident_report --arg service=checkout-api --answer include_logs='{"includeLogs":true}'
  npx @modelcontextprotocol/inspector     (transport: Streamable HTTP, URL: ${url})

Every response carries X-Upstream, the replica that served it. Ctrl-C stops everything.
${
  prometheus
    ? `
OpenTelemetry on (--otel):
  Prometheus     ${prometheus.url} (scrapes ${metricsPorts.map((metricsPort) => `127.0.0.1:${metricsPort}`).join(', ')} every second)
  try            ${prometheus.url}/graph?g0.expr=${encodeURIComponent('sum by (mcp_method_name) (rate(mcp_server_operation_duration_count[1m]))')}
  traces         OTLP/HTTP to the OTEL_EXPORTER_OTLP_* endpoint (default http://localhost:4318)
`
    : ''
}`);
}

main().catch(async (error) => {
  log(error instanceof Error ? error.message : String(error));
  await shutdown(1);
});
