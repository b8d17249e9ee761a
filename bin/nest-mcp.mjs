#!/usr/bin/env node
/**
 * `nest-mcp` — the terminal client of libs/mcp/src/cli (docs/stdio.md).
 *
 *   npx nest-mcp tools http://127.0.0.1:3000/mcp
 *   npx nest-mcp call --stdio "node dist/apps/demo/apps/demo/src/stdio.js" list_services
 *
 * Runs the compiled CLI (dist/cli, from `npm run build:cli`), compiling it first with tsc when the build is missing
 * or older than its sources, so `npx nest-mcp` works straight after `npm ci`. The build is written to a temporary
 * folder and moved into place, so two commands starting at once never run a half-written build. Compiler output
 * goes to stderr: stdout is the command's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/cli');
const ENTRY = join(OUT, 'cli/main.js');
const TSCONFIG = join(ROOT, 'libs/mcp/tsconfig.cli.json');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** What the CLI is compiled from: its folder and the library folders it imports (progress events, trace ids). */
const SOURCE_DIRS = ['libs/mcp/src/cli', 'libs/mcp/src/progress', 'libs/mcp/src/protocol'].map((dir) => join(ROOT, dir));
const CONFIG_FILES = [TSCONFIG, join(ROOT, 'tsconfig.json')];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

function isStale() {
  if (!existsSync(ENTRY)) return true;
  if (!existsSync(SOURCE_DIRS[0])) return false; // installed without sources: use the build as it is
  const built = statSync(ENTRY).mtimeMs;
  return Math.max(...SOURCE_DIRS.map(newestMtime), ...CONFIG_FILES.map((file) => statSync(file).mtimeMs)) > built;
}

function build() {
  if (!existsSync(TSC)) {
    process.stderr.write('nest-mcp: the CLI is not built and TypeScript is not installed; run npm run build:cli\n');
    process.exit(1);
  }
  const staging = `${OUT}.building-${process.pid}`;
  try {
    execFileSync(process.execPath, [TSC, '-p', TSCONFIG, '--outDir', staging, '--noCheck'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    rmSync(OUT, { recursive: true, force: true });
    renameSync(staging, OUT);
  } catch (error) {
    // Another command may have moved its build into place first; that build is as good as ours.
    if (!existsSync(ENTRY)) {
      process.stderr.write(`nest-mcp: building the CLI failed: ${error.message.split('\n', 1)[0]}\n`);
      process.exit(1);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (isStale()) build();
await import(pathToFileURL(ENTRY).href);
