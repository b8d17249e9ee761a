/**
 * Tools that need another Node than the project's (the conformance suite, the MCP Inspector: Node 22) live in their
 * own folder under tools/ with a pinned `node` package and a committed package-lock.json. `ensurePinnedRunner`
 * installs such a folder with `npm ci` the first time, and again whenever its lockfile changed since the last install
 * (a hash of the lockfile is kept in node_modules/.installed-lock-hash).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Installs `dir` (a folder with package.json and package-lock.json) unless its current lockfile is installed. */
export function ensurePinnedRunner(dir, log = (message) => console.log(message)) {
  const lock = readFileSync(join(dir, 'package-lock.json'));
  const stamp = join(dir, 'node_modules/.installed-lock-hash');
  const hash = createHash('sha256').update(lock).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  log(`installing the pinned runner (${dir})`);
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`npm ci in ${dir} exited with ${result.status ?? result.signal}`);
  writeFileSync(stamp, hash);
}
