#!/usr/bin/env node
/**
 * The first step of `npm test`: makes sure the programs the tests start for real are on this machine. Each comes
 * from a Debian package; a missing one is installed with apt-get when this process may (root, or passwordless
 * sudo), otherwise the run stops at once with the exact command to type. No test is ever skipped because a
 * component is missing: that is why this check exists.
 *
 *   node scripts/test-prerequisites.mjs            check, install what is missing when allowed, exit 0 or 1
 *   node scripts/test-prerequisites.mjs --check    check only: list what is missing, never install
 *
 * Besides the packages it checks that this user can make a user and network namespace (`unshare -rn`), which the
 * Host/Origin and SSRF tests run in: a kernel or container setting it reports with the fix, never changes.
 *
 * NEST_MCP_NO_APT=1 forbids installing (the run stops with the command instead).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * What the tests start, the Debian package that provides it and why. `paths` are looked at besides `$PATH`
 * (nginx and ip live in /usr/sbin, which a non-root `$PATH` often lacks).
 */
export const COMPONENTS = [
  {
    command: 'redis-server',
    package: 'redis-server',
    why: 'nest-mcp-redis and the cluster tests start their own Redis',
  },
  {
    command: 'nginx',
    package: 'nginx',
    paths: ['/usr/sbin/nginx'],
    why: 'the round-robin balancer of the cluster tests',
  },
  {
    command: 'chromium',
    package: 'chromium',
    paths: ['/usr/bin/chromium'],
    exact: true,
    why: 'the browser tests (MCP Apps) drive /usr/bin/chromium',
  },
  {
    command: 'curl',
    package: 'curl',
    why: 'the demo prints curl lines (npm start -- --auth) and the tests run them as printed',
  },
  {
    command: 'prometheus',
    package: 'prometheus',
    paths: ['/usr/bin/prometheus'],
    why: 'the telemetry tests and `demo:cluster -- --otel` scrape the servers with a real Prometheus',
  },
  {
    command: 'ip',
    package: 'iproute2',
    paths: ['/usr/sbin/ip', '/sbin/ip'],
    why: 'the network-namespace tests (Host/Origin, SSRF refusals)',
  },
  {
    command: 'unshare',
    package: 'util-linux',
    paths: ['/usr/bin/unshare'],
    why: 'makes the user and network namespaces of those tests (no root needed)',
  },
  { command: 'openssl', package: 'openssl', why: 'the SSRF test makes a CA and a certificate for its HTTPS receivers' },
];

/**
 * Why this user cannot make the user and network namespaces the Host/Origin and SSRF tests run in (`unshare -rn`,
 * test/support/user-namespace.ts), with what to do; undefined when it can. Not a package: a kernel or container
 * setting, which this script never changes.
 */
export function namespaceProblem() {
  const probe = spawnSync('unshare', ['--user', '--map-root-user', '--net', 'ip', 'link', 'set', 'lo', 'up'], {
    encoding: 'utf8',
  });
  if (probe.status === 0) return undefined;
  const why = probe.error ? probe.error.message : probe.stderr.trim() || `exit ${probe.status}`;
  return (
    `this user cannot create a user and network namespace (unshare -rn: ${why}). Allow unprivileged user namespaces ` +
    '(sysctl -w kernel.unprivileged_userns_clone=1 on Debian; user.max_user_namespaces above 0; on Ubuntu 24.04+ ' +
    'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0), or run the tests as root; in a container, start it ' +
    'with --security-opt seccomp=unconfined (or --privileged)'
  );
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a component is installed: an exact path when the tests use one, else `$PATH` or the usual sbin paths. */
export function isInstalled(component) {
  if (component.exact) return component.paths.some(executable);
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return [...dirs.map((dir) => join(dir, component.command)), ...(component.paths ?? [])].some(executable);
}

function run(command, args) {
  process.stdout.write(`test-prerequisites: ${[command, ...args].join(' ')}\n`);
  return (
    spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
      .status === 0
  );
}

/** How this process may install Debian packages: directly as root, through passwordless sudo, or not at all. */
function installer() {
  if (process.env.NEST_MCP_NO_APT === '1') return { reason: 'NEST_MCP_NO_APT=1 forbids installing' };
  const apt = ['/usr/bin/apt-get', '/bin/apt-get'].find(executable);
  if (!apt) return { reason: 'this machine has no apt-get (the tests expect Debian or Ubuntu packages)' };
  if (process.getuid?.() === 0) return { prefix: [], apt };
  if (spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return { prefix: ['sudo', '-n'], apt };
  return { reason: 'installing needs root (this user is not root and has no passwordless sudo)' };
}

/** The namespace check, once the packages are there: 0, or 1 with the guidance on stderr. */
function checkNamespaces() {
  const problem = namespaceProblem();
  if (!problem) return 0;
  process.stderr.write(`test-prerequisites: the network-namespace tests cannot run: ${problem}.\n`);
  return 1;
}

function main() {
  const checkOnly = process.argv.includes('--check');
  const missing = COMPONENTS.filter((component) => !isInstalled(component));
  if (missing.length === 0) return checkNamespaces();
  const packages = missing.map((component) => component.package);
  const command = `sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`;
  const list = missing.map((c) => `  - ${c.package} (${c.command}): ${c.why}`).join('\n');
  process.stdout.write(`test-prerequisites: the tests need Debian packages that are not installed:\n${list}\n`);
  const how = checkOnly ? { reason: '--check only lists them' } : installer();
  if (how.reason) {
    process.stderr.write(
      `test-prerequisites: not installing: ${how.reason}.\nInstall them, then run npm test again:\n\n  ${command}\n\n`,
    );
    return 1;
  }
  const [program, ...args] = [...how.prefix, how.apt];
  const ok = run(program, [...args, 'update']) && run(program, [...args, 'install', '-y', ...packages]);
  const still = COMPONENTS.filter((component) => !isInstalled(component));
  if (!ok || still.length > 0) {
    const names = (still.length ? still : missing).map((c) => c.package).join(' ');
    process.stderr.write(
      `test-prerequisites: installing failed; still missing: ${names}.\nInstall them by hand, then run npm test again:\n\n  ${command}\n\n`,
    );
    return 1;
  }
  process.stdout.write(`test-prerequisites: installed ${packages.join(', ')}\n`);
  return checkNamespaces();
}

process.exitCode = main();
