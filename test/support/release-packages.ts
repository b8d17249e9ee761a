import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PACKAGES, packInputs } from '../../scripts/pack.mjs';
import { sleep } from './wait.util.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
/** Under the repository's node_modules: one folder of tarballs per content of the inputs. */
const CACHE = join(ROOT, 'node_modules/.cache/nest-mcp-release');
/** How long a second test file waits for the first one's `npm run pack`. */
const WAIT_MS = 240_000;

/** The name of each package of the repository → its tarball. */
export type ReleaseTarballs = Record<string, string>;

/**
 * The environment of a command run as a user would: without the `npm_*` variables of an enclosing `npm test`
 * (they name this repository as the project, `npm_config_local_prefix`).
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(package_|lifecycle_|config_(local_)?prefix$)/i.test(key)),
  );
  return { ...env, ...extra };
}

/** A finished command: exit code and output (it does not throw on a non-zero exit). */
export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args` in `cwd`; a command that cannot start or times out rejects. */
export async function runCommand(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = userEnv(),
  timeout = 120_000,
): Promise<CommandRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, {
      cwd,
      env,
      timeout,
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A digest of every input of `npm run pack` (paths and contents) and of the Node.js that runs it. */
function inputsDigest(): string {
  const hash = createHash('sha256').update(process.version);
  for (const file of packInputs()) hash.update(`\0${file}\0`).update(readFileSync(join(ROOT, file)));
  return hash.digest('hex').slice(0, 32);
}

function tarballsIn(dir: string): ReleaseTarballs {
  const names = readdirSync(dir);
  return Object.fromEntries(
    PACKAGES.map(({ name }) => {
      const file = names.find((candidate) => new RegExp(`^${name}-\\d+\\.\\d+\\.\\d+.*\\.tgz$`).test(candidate));
      if (!file) throw new Error(`npm run pack wrote no tarball for ${name} into ${dir} (found: ${names.join(', ')})`);
      return [name, join(dir, file)];
    }),
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Removes folders of earlier inputs that nobody has touched for a day. */
function pruneOld(keep: string): void {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(CACHE)) {
    if (name === keep || name.endsWith('.lock')) continue;
    const path = join(CACHE, name);
    if (statSync(path).mtimeMs < dayAgo) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * The tarballs of every package, built by `npm run pack` exactly as a maintainer runs it (into a folder of its own).
 * Test files that need them share one build per content of the inputs: the first takes a lock (a folder, made
 * atomically) and packs; the others wait for its result. The same inputs give the same tarballs (the build is
 * deterministic), so a folder left by an earlier run with the same inputs is reused.
 */
export async function releaseTarballs(): Promise<ReleaseTarballs> {
  mkdirSync(CACHE, { recursive: true });
  const digest = inputsDigest();
  const done = join(CACHE, digest);
  const lock = join(CACHE, `${digest}.lock`);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(done)) return tarballsIn(done);
    try {
      mkdirSync(lock);
    } catch {
      // Another test file is packing these inputs: wait for it, unless it died holding the lock.
      const owner = Number(readFileSafe(join(lock, 'pid')));
      if (owner > 0 && !isAlive(owner)) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline)
        throw new Error(`timed out after ${WAIT_MS} ms waiting for another test's npm run pack (lock ${lock})`);
      await sleep(250);
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      const out = join(CACHE, `${digest}.tmp-${process.pid}`);
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
      const packed = await runCommand(npm, ['run', 'pack', '--silent', '--', '--out', out], ROOT, userEnv(), 180_000);
      if (packed.code !== 0)
        throw new Error(`npm run pack failed (exit ${packed.code}):\n${packed.stderr}${packed.stdout}`);
      tarballsIn(out);
      renameSync(out, done);
      pruneOld(digest);
      return tarballsIn(done);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
