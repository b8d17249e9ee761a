#!/usr/bin/env node
/**
 * `nest-mcp` — the terminal client of libs/cli, published as `nest-mcp-cli` (docs/stdio.md).
 *
 *   npx nest-mcp tools http://127.0.0.1:3000/mcp
 *   npx nest-mcp call --stdio "node dist/apps/demo/apps/demo/src/stdio.js" list_services
 *
 * Runs the CLI compiled from this repository's sources into dist/cli, compiling it first with tsc when the build is
 * missing or older than its sources, so `npx nest-mcp` works straight after `npm ci`. The CLI imports the server
 * library as the package `nest-mcp` (its `nest-mcp/backend` entry); here that name is the `paths` alias of tsconfig.json, so the library's sources
 * are compiled beside it and the import is rewritten to a relative one, as `nest build` does for the apps. (The
 * published package, `npm run build:cli`, keeps `nest-mcp` a package import.) The build is written to a temporary
 * folder and moved into place, so two commands starting at once never run a half-written build. Compiler output
 * goes to stderr: stdout is the command's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/cli');
const CLI_OUT = 'libs/cli/src';
/** The compiled entry of each `nest-mcp` import path the CLI uses. */
const LIBRARY_ENTRIES = {
  'nest-mcp': 'libs/mcp/src/index.js',
  'nest-mcp/backend': 'libs/mcp/src/backend/index.js',
  'nest-mcp/progress': 'libs/mcp/src/progress/index.js',
};
const ENTRY = join(OUT, CLI_OUT, 'main.js');
const TSCONFIG = join(ROOT, 'libs/cli/tsconfig.cli.json');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** What the CLI is compiled from: its own sources and the server library it imports as `nest-mcp`. */
const SOURCE_DIRS = ['libs/cli/src', 'libs/mcp/src'].map((dir) => join(ROOT, dir));
const CONFIG_FILES = [TSCONFIG, join(ROOT, 'tsconfig.json')];
/** `'nest-mcp'`, `'nest-mcp/backend'` or `'nest-mcp/progress'` in an emitted `import … from` or `import()`. */
const LIBRARY_SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*)(['"])(nest-mcp(?:\/backend|\/progress)?)\2/g;

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

/** `from 'nest-mcp'` (or `'nest-mcp/backend'`, `'nest-mcp/progress'`) → a relative import of the library compiled beside the CLI. */
function rewriteLibraryImports(out) {
  for (const entry of readdirSync(join(out, CLI_OUT), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = join(entry.parentPath, entry.name);
    const specifier = (name) =>
      relative(entry.parentPath, join(out, LIBRARY_ENTRIES[name]))
        .split('\\')
        .join('/')
        .replace(/^(?!\.)/, './');
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(
      LIBRARY_SPECIFIER,
      (_, head, quote, name) => `${head}${quote}${specifier(name)}${quote}`,
    );
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

function build() {
  if (!existsSync(TSC)) {
    process.stderr.write('nest-mcp: the CLI is not built and TypeScript is not installed; run npm ci first\n');
    process.exit(1);
  }
  const staging = `${OUT}.building-${process.pid}`;
  try {
    execFileSync(process.execPath, [TSC, '-p', TSCONFIG, '--outDir', staging, '--noCheck'], {
      cwd: ROOT,
      stdio: ['ignore', 2, 2],
    });
    rewriteLibraryImports(staging);
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
