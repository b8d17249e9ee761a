import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = join(ROOT, 'node_modules/.cache/nest-mcp-stdio-fixture');
const OUT = join(CACHE, 'out');
const STAMP = join(CACHE, 'built.stamp');
const LOCK = join(CACHE, 'lock');
const ENTRY_SOURCE = 'test/fixtures/stdio-main.fixture.ts';
const SOURCES = [join(ROOT, 'libs/mcp/src'), join(ROOT, 'test/fixtures')];

/** The compiled entry point of the stdio fixture, runnable with plain `node`. */
export const STDIO_FIXTURE_ENTRY = join(OUT, ENTRY_SOURCE.replace(/\.ts$/, '.js'));

/**
 * Compiles the stdio fixture (and the library it imports) with `tsc` into `node_modules/.cache`, so tests can spawn
 * it as a real child process: vitest's transform does not reach a child. Type-checking is skipped (`--noCheck`;
 * `npm run typecheck` covers it), and, as `nest build` does, the `nest-mcp` alias is rewritten to a relative path.
 * The build is reused until a source is newer than it; test files building at the same time wait on a lock.
 */
export async function buildStdioFixture(): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  await withLock(async () => {
    if (!isStale()) return;
    rmSync(OUT, { recursive: true, force: true });
    writeFileSync(
      join(CACHE, 'tsconfig.json'),
      JSON.stringify({
        extends: relative(CACHE, join(ROOT, 'tsconfig.json')),
        compilerOptions: { rootDir: relative(CACHE, ROOT), outDir: './out', declaration: false, sourceMap: false },
        files: [relative(CACHE, join(ROOT, ENTRY_SOURCE))],
        include: [],
        exclude: [],
      }),
    );
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(CACHE, 'tsconfig.json'), '--noCheck'],
      {
        cwd: ROOT,
      },
    );
    rewriteAlias(join(OUT, 'test'));
    writeFileSync(STAMP, new Date().toISOString());
  });
  return STDIO_FIXTURE_ENTRY;
}

function isStale(): boolean {
  if (!existsSync(STAMP) || !existsSync(STDIO_FIXTURE_ENTRY)) return true;
  const built = statSync(STAMP).mtimeMs;
  return SOURCES.some((dir) => newestMtime(dir) > built);
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** `from 'nest-mcp'` (and `'nest-mcp/backend'`) → a relative import of the compiled library, in every emitted test file. */
function rewriteAlias(dir: string): void {
  const entries: Record<string, string> = { '': 'libs/mcp/src/index.js', '/backend': 'libs/mcp/src/backend/index.js' };
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = join(entry.parentPath, entry.name);
    const specifier = (subpath: string) =>
      relative(entry.parentPath, join(OUT, entries[subpath])).replace(/^(?!\.)/, './');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        /from\s+['"]nest-mcp(|\/backend)['"]/g,
        (_, subpath: string) => `from '${specifier(subpath)}'`,
      ),
    );
  }
}

/** Runs `work` holding a directory lock; a lock older than two minutes is taken over (its holder died). */
async function withLock(work: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 120_000)
        rmSync(LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
