#!/usr/bin/env node
/**
 * Builds one package of this repository the way a long build runs under a wrapper: file by file, reporting its
 * progress as NDJSON `ProgressEvent` lines on stderr, with its report (JSON) on stdout. The demo's `build_package`
 * tool runs it and relays the progress with `ctx.progressFrom` (docs/stdio.md, "Wrapping a command").
 *
 *   node scripts/build.mjs <package> [--out <dir>]    package: mcp | cli | mcp-redis (libs/<package>/src)
 *   node scripts/build.mjs --help
 *
 * Each source file (specs aside) is compiled to JavaScript with esbuild — a transpile (legacy decorators, no
 * decorator metadata), not the published build, which is `npm run pack` — into `<dir>` (default
 * dist/build/<package>), and reported once done: `{"type":"progress","progress":i,"total":n,"message":"Compiled …"}`.
 * TRACEPARENT, when set, puts the request's trace ids on every event. Other stderr lines are plain text (the wrapper
 * logs them). Exit codes: 0 built, 1 a file failed to compile, 2 bad arguments.
 *
 * The lines follow the `ProgressEvent` contract of `nest-mcp/progress`; a script of this repository runs without a
 * build, so it writes them itself (one `write` per line) rather than import the TypeScript sources.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { transform } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = ['mcp', 'cli', 'mcp-redis'];
const USAGE = `usage: node scripts/build.mjs <package> [--out <dir>]
  package  ${PACKAGES.join(' | ')} (compiles libs/<package>/src, specs aside)
  --out    where the JavaScript goes (default dist/build/<package>; emptied first)
Progress: NDJSON ProgressEvent lines on stderr; the report: JSON on stdout.`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** One `ProgressEvent` line, keys in contract order, written with one `write`. */
function reportProgress(progress, total, message) {
  const ids = TRACEPARENT.exec(process.env.TRACEPARENT ?? '');
  const event = { type: 'progress', progress, total, message, timestamp: new Date().toISOString() };
  if (ids && !/^0+$/.test(ids[1]) && !/^0+$/.test(ids[2])) Object.assign(event, { traceId: ids[1], spanId: ids[2] });
  process.stderr.write(`${JSON.stringify(event)}\n`);
}

/** The TypeScript sources of a folder, specs aside, in a stable order. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')
        ? [path]
        : [];
    });
}

function fail(message, code) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(code);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (error) {
  fail(`${error.message}\n${USAGE}`, 2);
}
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [name, ...extra] = parsed.positionals;
if (!PACKAGES.includes(name) || extra.length > 0)
  fail(`${name === undefined ? 'no package given' : `unknown package "${[name, ...extra].join(' ')}"`}\n${USAGE}`, 2);

const sourceRoot = join(ROOT, 'libs', name, 'src');
const out = parsed.values.out ?? join(ROOT, 'dist/build', name);
const files = sources(sourceRoot);
const started = Date.now();
process.stderr.write(`build: ${files.length} files of libs/${name}/src into ${relative(ROOT, out) || '.'}\n`);
rmSync(out, { recursive: true, force: true });

let bytes = 0;
for (const [index, file] of files.entries()) {
  const path = relative(ROOT, file);
  let code;
  try {
    ({ code } = await transform(readFileSync(file, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'es2023',
      sourcefile: path,
      tsconfigRaw: { compilerOptions: { experimentalDecorators: true } },
    }));
  } catch (error) {
    fail(`${path} failed to compile: ${error.message}`, 1);
  }
  const target = join(out, relative(sourceRoot, file)).replace(/\.ts$/, '.js');
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, code);
  bytes += Buffer.byteLength(code);
  reportProgress(index + 1, files.length, `Compiled ${path}`);
}
console.log(
  JSON.stringify({
    package: name,
    files: files.length,
    bytes,
    outDir: relative(ROOT, out) || '.',
    durationMs: Date.now() - started,
  }),
);
