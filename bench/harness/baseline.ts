import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { useBaseline } from './servers.js';

/**
 * `--baseline DIR`: builds the bench of another checkout of this repository (its own `bench/build.mjs`, with its own
 * node_modules) and points the baseline servers at its nest-mcp bench server, so that one interleaved run measures
 * both builds under the same load. Returns the baseline's commit; throws with what to do when the checkout
 * cannot be used.
 */
export function prepareBaseline(checkout: string): string {
  const build = join(checkout, 'bench', 'build.mjs');
  if (!existsSync(build))
    throw new Error(`--baseline ${checkout}: no bench/build.mjs there; give a checkout of this repository`);
  if (!existsSync(join(checkout, 'node_modules'))) throw new Error(`--baseline ${checkout}: run npm ci there first`);
  const built = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `(await import(${JSON.stringify(pathToFileURL(build).href)})).ensureBuilt()`],
    {
      cwd: checkout,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  if (built.status !== 0) throw new Error(`--baseline ${checkout}: its bench did not build (exit ${built.status})`);
  const servers = join(checkout, 'dist', 'bench', 'bench', 'servers');
  if (!existsSync(join(servers, 'nest-mcp.server.js')))
    throw new Error(`--baseline ${checkout}: ${servers}/nest-mcp.server.js is missing after the build`);
  let commit = 'baseline';
  try {
    commit = execFileSync('git', ['rev-parse', '--short=10', 'HEAD'], {
      cwd: checkout,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // not a git checkout: keep the generic label
  }
  useBaseline(servers, commit);
  return commit;
}
