import { spawn, spawnSync, type ChildProcessByStdio, type SpawnOptions } from 'node:child_process';
import type { Readable } from 'node:stream';

/**
 * Network namespaces for tests, without root: `unshare --user --map-root-user --net` makes a user namespace in which
 * this user is root, with a network namespace of its own (only a loopback, down, until the setup brings it up) and,
 * with `mount`, a mount namespace where a file can be bind-mounted over /etc/hosts. Nothing on the host changes,
 * and the namespace goes away with its last process. Root gets the same (a root user namespace is harmless), so
 * CI and a developer's laptop run the same code. The commands come from util-linux (`unshare`) and iproute2 (`ip`).
 */

/** Why user and network namespaces cannot be made here (with what to do about it), or undefined when they can. */
export function userNamespaceProblem(): string | undefined {
  const probe = spawnSync('unshare', ['--user', '--map-root-user', '--net', 'ip', 'link', 'set', 'lo', 'up'], {
    encoding: 'utf8',
  });
  if (probe.error)
    return `cannot run unshare (${probe.error.message}): install util-linux and iproute2 (npm run test:prerequisites)`;
  if (probe.status === 0) return undefined;
  return (
    `this user cannot create a user and network namespace (unshare -rn: ${probe.stderr.trim() || `exit ${probe.status}`}). ` +
    'Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 on Debian, user.max_user_namespaces > 0, ' +
    'and on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0), or run the tests as root; in a container, run it ' +
    'with --security-opt seccomp=unconfined or --privileged. `node scripts/test-prerequisites.mjs --check` reports the same.'
  );
}

/** Throws the problem, so a test that needs a namespace fails with the guidance instead of being skipped. */
export function requireUserNamespaces(test: string): void {
  const problem = userNamespaceProblem();
  if (problem) throw new Error(`${test} needs a network namespace: ${problem}`);
}

/** What runs inside the namespace: shell `setup` lines (as namespace root), then `command` (exec'd, so it is the child). */
export interface NamespacedCommand {
  setup: string[];
  command: string[];
  /** Also a mount namespace (for bind mounts such as a hosts file). */
  mount?: boolean;
  /** Run as this uid/gid (through setpriv; needs root): to show the namespace needs no privilege. */
  asUser?: number;
}

/** The argv that runs `spec`: `[setpriv …] unshare … sh -c '<setup>; exec "$@"' sh <command…>`. */
export function namespacedArgv(spec: NamespacedCommand): string[] {
  const unshare = ['unshare', '--user', '--map-root-user', '--net', ...(spec.mount ? ['--mount'] : [])];
  const setpriv =
    spec.asUser === undefined ? [] : ['setpriv', `--reuid=${spec.asUser}`, `--regid=${spec.asUser}`, '--clear-groups'];
  const script = [...spec.setup, 'exec "$@"'].join(' && ');
  return [...setpriv, ...unshare, 'sh', '-e', '-c', script, 'sh', ...spec.command];
}

/** Spawns `spec` with pipes for stdout and stderr. */
export function spawnNamespaced(
  spec: NamespacedCommand,
  options: Omit<SpawnOptions, 'stdio'> = {},
): ChildProcessByStdio<null, Readable, Readable> {
  const [file, ...args] = namespacedArgv(spec);
  return spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs `spec` to its end; its stdout (throws with stderr when it fails). */
export function runNamespaced(spec: NamespacedCommand): string {
  const [file, ...args] = namespacedArgv(spec);
  const ran = spawnSync(file, args, { encoding: 'utf8' });
  if (ran.status !== 0)
    throw new Error(`${args.join(' ')} failed (${ran.error?.message ?? `exit ${ran.status}`}): ${ran.stderr}`);
  return ran.stdout;
}
