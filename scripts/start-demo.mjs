#!/usr/bin/env node
/**
 * `npm start`: runs the ops-console demo, building it first when the build is missing or stale.
 *
 *   node scripts/start-demo.mjs [--adapter=fastify]      (env: PORT, HOST, ADAPTER)
 *   node scripts/start-demo.mjs --build-only             build if stale, then exit (npm run demo:cluster)
 *   node scripts/start-demo.mjs --auth                   with authorization (env: AUTH_ISSUER, AUTH_RESOURCE,
 *                                                        AUTH_PORT, AUTH_CLIENT_SECRET)
 *
 * The build (`nest build demo`, then the MCP Apps views: scripts/build-demo-views.mjs) is stale when any file under
 * apps/demo/src, apps/demo/views, libs/mcp/src, libs/mcp/playground or libs/mcp-redis/src (unit specs aside), a tsconfig or nest-cli.json
 * is newer than the built entry point, or a view was never built. Build output goes to stderr, so that stdout carries
 * only the server's own output. Builds take a lock (dist/.demo-build.lock): starts at the same time build once.
 * Arguments and environment are passed to the server; SIGINT, SIGTERM and SIGHUP are forwarded to it, and this
 * process exits the way the server did (same code, or same signal).
 *
 * With `--auth` and no `AUTH_ISSUER`, a local OAuth authorization server (oidc-provider, in memory, on 127.0.0.1, port
 * `AUTH_PORT` or any free one) runs in this process (scripts/auth/demo-authorization-server.ts) for as long as the
 * server does, and the server gets `AUTH_ISSUER` and `AUTH_RESOURCE` (its own URL: with `PORT=0`, a free port is
 * chosen here first, since tokens name it). How to get a token and connect is printed to stderr. With `AUTH_ISSUER`
 * set, that authorization server is used and none is started.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where `nest build demo` puts the entry point (rootDir is the repo root, so the source tree is mirrored). */
const ENTRY = join(ROOT, 'dist/apps/demo/apps/demo/src/main.js');
const NEST_CLI = join(ROOT, 'node_modules/.bin/nest');
const SOURCE_DIRS = [
  'apps/demo/src',
  'apps/demo/views',
  'libs/mcp/src',
  'libs/mcp/playground',
  'libs/mcp-redis/src',
].map((dir) => join(ROOT, dir));
/** The MCP Apps views the build bundles (scripts/build-demo-views.mjs); missing means stale. */
const VIEWS = [join(ROOT, 'dist/apps/demo-views/deployment-board.html')];
const CONFIG_FILES = ['tsconfig.json', 'apps/demo/tsconfig.app.json', 'nest-cli.json'].map((file) => join(ROOT, file));
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Held while building, so that two starts at once (tests run in parallel) never build into the same dist/. */
const BUILD_LOCK = join(ROOT, 'dist/.demo-build.lock');

/** The child currently running (the build, then the server), to forward signals to. */
let current;
/** A signal received while building: do not start the server afterwards. */
let interrupted;

for (const signal of FORWARDED_SIGNALS) {
  process.on(signal, () => {
    interrupted ??= signal;
    current?.kill(signal);
  });
}
// If this process dies unexpectedly, do not leave an orphaned server holding the port.
process.on('exit', () => {
  if (current && current.exitCode === null && current.signalCode === null) current.kill('SIGTERM');
});

/** Newest modification time (ms) of the files under `dir` that the build compiles; 0 if it does not exist. */
function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    // Unit specs sit beside the sources but are excluded from the build.
    if (!entry.isFile() || entry.name.endsWith('.spec.ts')) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function isBuildStale() {
  if (!existsSync(ENTRY) || !VIEWS.every(existsSync)) return true;
  const built = statSync(ENTRY).mtimeMs;
  const sources = Math.max(
    ...SOURCE_DIRS.map(newestMtime),
    ...CONFIG_FILES.filter(existsSync).map((file) => statSync(file).mtimeMs),
  );
  return sources > built;
}

/**
 * Runs a command with this process's environment and resolves with how it ended.
 * The child shares stderr and gets no stdin; its stdout goes to `stdout` (a stream or 'inherit').
 * It runs in its own process group (`detached`), so a terminal's Ctrl+C reaches only this process, which forwards
 * it once: a doubled SIGINT would cut the server's graceful shutdown short.
 */
function run(command, args, stdout = 'inherit') {
  return new Promise((resolve, reject) => {
    current = spawn(command, args, {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', stdout, 'inherit'],
      detached: true,
    });
    current.once('error', reject);
    current.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Ends this process the way the child ended: same exit code, or killed by the same signal. */
function exitLike({ code, signal }) {
  if (signal) {
    // Without listeners the default action applies, so the parent's own parent sees the same signal.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
}

/** Whether process `pid` still runs. */
function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Takes the build lock (waiting while another live process holds it) and releases it once `build` settled. */
async function withBuildLock(build) {
  mkdirSync(dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      writeFileSync(BUILD_LOCK, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A lock left by a process that died is taken over.
      const owner = Number(readFileSync(BUILD_LOCK, 'utf8'));
      if (!Number.isInteger(owner) || owner <= 0 || !isRunning(owner)) rmSync(BUILD_LOCK, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await build();
  } finally {
    rmSync(BUILD_LOCK, { force: true });
  }
}

/** Builds the demo if it is stale (checked again under the lock: another start may just have built it). */
async function buildIfStale() {
  if (!isBuildStale()) return undefined;
  return withBuildLock(async () => {
    if (!isBuildStale()) return undefined;
    // The playground's bundle is a module of nest-mcp's sources (scripts/build-playground.mjs): built before them.
    const { buildPlayground } = await import('./build-playground.mjs');
    await buildPlayground();
    console.error('[start-demo] Building the demo: nest build demo');
    const build = await run(NEST_CLI, ['build', 'demo'], process.stderr);
    if (interrupted) return { signal: interrupted };
    if (build.signal || build.code !== 0) {
      console.error('[start-demo] The build failed.');
      return build;
    }
    if (!existsSync(ENTRY)) {
      console.error(`[start-demo] The build did not produce ${ENTRY}.`);
      return { code: 1 };
    }
    // The MCP Apps views: single-file HTML bundles the server reads (the deployment board).
    console.error('[start-demo] Building the views: scripts/build-demo-views.mjs');
    const { buildDemoViews } = await import('./build-demo-views.mjs');
    await buildDemoViews();
    return undefined;
  });
}

/**
 * `--auth`: unless `AUTH_ISSUER` names an authorization server already, starts the local one for the server's URL and
 * sets `AUTH_ISSUER` / `AUTH_RESOURCE` (and a fixed `PORT`) in this process's environment, which the server inherits.
 */
async function startAuthorization() {
  if (process.env.AUTH_ISSUER) {
    console.error(`[start-demo] Authorization: tokens from ${process.env.AUTH_ISSUER} (AUTH_ISSUER)`);
    return;
  }
  if (!process.env.PORT || process.env.PORT === '0')
    process.env.PORT = String(process.env.PORT === '0' ? await freePort() : 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  const resourceHost = ['', '0.0.0.0', '::', '[::]'].includes(host) ? '127.0.0.1' : host;
  const resource = process.env.AUTH_RESOURCE || `http://${resourceHost}:${process.env.PORT}/mcp`;
  // The authorization server is TypeScript, shared with the tests: compiled on the fly by the tests' loader.
  await import('../test/support/ts-child.loader.mjs');
  const { startDemoAuthorizationServer } = await import('./auth/demo-authorization-server.ts');
  const authorization = await startDemoAuthorizationServer({
    resource,
    port: process.env.AUTH_PORT ? Number(process.env.AUTH_PORT) : undefined,
    clientSecret: process.env.AUTH_CLIENT_SECRET || undefined,
  });
  for (const line of authorization.instructions()) console.error(`[start-demo] ${line}`);
  process.env.AUTH_ISSUER = authorization.issuer;
  process.env.AUTH_RESOURCE = resource;
}

async function main() {
  const buildOnly = process.argv.includes('--build-only');
  const failed = await buildIfStale();
  if (failed) return exitLike(failed);
  if (interrupted) return exitLike({ signal: interrupted });
  if (buildOnly) return exitLike({ code: 0 });
  if (process.argv.includes('--auth')) await startAuthorization();
  if (interrupted) return exitLike({ signal: interrupted });
  exitLike(await run(process.execPath, [ENTRY, ...process.argv.slice(2)]));
}

await main();
