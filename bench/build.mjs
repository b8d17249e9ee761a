/**
 * Compiles the bench (servers, harness) and the library sources they import with tsc into dist/bench, when the
 * output is missing or older than any source. Decorators need `emitDecoratorMetadata`, hence tsc rather than type
 * stripping; the servers import the library by relative path, so plain tsc output runs as is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** tsc mirrors the repo layout under the outDir (rootDir is the repo root). */
export const BUILT = join(ROOT, 'dist/bench/bench');
const STAMP = join(ROOT, 'dist/bench/.built');
const SOURCE_DIRS = ['bench/servers', 'bench/harness', 'libs/mcp/src', 'libs/mcp-redis/src', 'test/support'].map(
  (dir) => join(ROOT, dir),
);
const CONFIG_FILES = ['tsconfig.json', 'bench/tsconfig.bench.json', 'package-lock.json'].map((file) =>
  join(ROOT, file),
);

function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.spec.ts')) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function isStale() {
  if (!existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  const sources = Math.max(
    ...SOURCE_DIRS.map(newestMtime),
    ...CONFIG_FILES.filter(existsSync).map((file) => statSync(file).mtimeMs),
  );
  return sources > built;
}

/** Builds when stale (or always with `force`); exits the process with tsc's status when the build fails. */
export function ensureBuilt({ force = false } = {}) {
  if (!force && !isStale()) return;
  console.error('[bench] Building: tsc -p bench/tsconfig.bench.json');
  const started = Date.now();
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'bench/tsconfig.bench.json')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    console.error('[bench] The build failed.');
    process.exit(result.status ?? 1);
  }
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  console.error(`[bench] Built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
