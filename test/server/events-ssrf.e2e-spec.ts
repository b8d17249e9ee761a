import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../support/app.factory.js';
import { SEP_CODES } from '../support/events.util.js';
import { requireUserNamespaces, spawnNamespaced } from '../support/user-namespace.js';

/**
 * SSRF protection of webhooks (SEP-3415, "SSRF prevention"; E-29, E-53), for real and safely: the server runs in a
 * network namespace of its own whose only interface is loopback, with no route anywhere (a child process in a user
 * and network namespace, `unshare -rnm`: no root needed, test/support/user-namespace.ts). The private, CGNAT,
 * link-local (cloud metadata) and public-looking addresses it is handed live on that loopback, each with HTTPS and
 * HTTP receivers that count what reaches them — so a regression could only ever reach those receivers, never a real
 * address. Names resolve through the namespace's own /etc/hosts (a file of this test bind-mounted over it), which the
 * fixture rewrites to rebind a name between subscribe and delivery. TLS is real: a CA made here, trusted by the
 * fixture through NODE_EXTRA_CA_CERTS. Where namespaces cannot be made, the tests fail and say how to allow them.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const LOADER = join(ROOT, 'test/support/ts-child.loader.mjs');
const FIXTURE = join(ROOT, 'test/fixtures/events-ssrf-main.fixture.ts');
const MARKER = '# nest-mcp events-ssrf namespace';
const NAMES = ['hooks.test', 'internal.test', 'metadata.test', 'mixed.test'];
const LOOPBACK_ADDRESSES = ['10.20.30.40', '100.64.0.9', '169.254.169.254', '1.2.3.4'];

interface Namespace {
  /** The CA and the receivers' certificate. */
  tls: string;
  /** This test's working folder: the hosts file the namespace sees as /etc/hosts, and what the setup recorded. */
  dir: string;
}

/** The CA and certificate for the receivers, and the files the namespace is made with (it is made per run). */
function prepare(): Namespace {
  const dir = mkdtempSync(join(tmpdir(), 'events-ssrf-'));
  const tls = join(dir, 'tls');
  mkdirSync(tls);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: tls, stdio: ['ignore', 'pipe', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=events-ssrf test CA',
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=hooks.test');
  const san = [
    ...NAMES.map((host) => `DNS:${host}`),
    ...LOOPBACK_ADDRESSES.map((address) => `IP:${address}`),
    'IP:127.0.0.1',
  ].join(',');
  writeFileSync(
    join(tls, 'leaf.ext'),
    `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.crt',
    '-days',
    '2',
    '-extfile',
    'leaf.ext',
  );
  return { tls, dir };
}

let namespace: Namespace | undefined;
afterAll(() => {
  if (namespace) rmSync(namespace.dir, { recursive: true, force: true });
});

/**
 * Runs the fixture inside a fresh namespace (loopback up with the test addresses on it, the test's hosts file as
 * /etc/hosts, its routes recorded) and returns its report and the namespace's routes.
 */
async function runScenario(ns: Namespace, adapter: string): Promise<Record<string, any>> {
  const hosts = join(ns.dir, `hosts-${adapter}`);
  const routes = join(ns.dir, `routes-${adapter}`);
  writeFileSync(hosts, `${MARKER}\n127.0.0.1 localhost\n`);
  const child = spawnNamespaced(
    {
      mount: true,
      setup: [
        'ip link set lo up',
        ...LOOPBACK_ADDRESSES.map((address) => `ip addr add ${address}/32 dev lo`),
        `mount --bind ${hosts} /etc/hosts`,
        `ip route > ${routes}`,
      ],
      command: [process.execPath, '--import', LOADER, FIXTURE, adapter, ns.tls],
    },
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', NODE_EXTRA_CA_CERTS: join(ns.tls, 'ca.crt') } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (exit) => {
      clearTimeout(timer);
      resolve(exit);
    });
  });
  const line = /^\{"report":.*\}$/m.exec(stdout);
  if (code !== 0 || !line) throw new Error(`the SSRF fixture failed (exit ${code}):\n${stderr}\n${stdout}`);
  return { ...(JSON.parse(line[0]) as { report: Record<string, any> }).report, routes: readFileSync(routes, 'utf8') };
}

describe.each(ADAPTERS)('events webhooks: SSRF, in a network namespace with loopback only (%s)', (adapter) => {
  let report: Record<string, any>;
  const scenario = async () => {
    requireUserNamespaces('events-ssrf');
    namespace ??= prepare();
    return (report ??= await runScenario(namespace, adapter));
  };

  it('the namespace has only loopback and no route', async () => {
    const { routes, interfaces } = await scenario();
    expect(routes.trim()).toBe('');
    expect(interfaces).toEqual(['lo']);
  }, 90_000);

  it('E-29, E-53: callback URLs with private, CGNAT, metadata, loopback, IPv4-mapped, NAT64, ULA, link-local, unspecified and benchmarking literals, or plain http, are -32602 before any connection', async () => {
    const { literals } = await scenario();
    for (const [name, error] of Object.entries(literals as Record<string, { code: number; message: string }>)) {
      expect(error, name).toMatchObject({ code: -32602 });
      expect(error.message, name).toMatch(/^Invalid params: delivery\.url/);
    }
  }, 90_000);

  it('E-53: names resolving to a private, a metadata, or a mixed set of addresses are refused on the connection: CallbackEndpointError, and no receiver got anything', async () => {
    const { names, hitsAfterRefusals } = await scenario();
    for (const [name, error] of Object.entries(names as Record<string, { code: number; data: unknown }>)) {
      expect(error, name).toEqual(
        expect.objectContaining({ code: SEP_CODES.CallbackEndpointError, data: { reason: 'connection_refused' } }),
      );
    }
    expect(hitsAfterRefusals).toEqual({});
  }, 90_000);

  it('E-53: DNS rebinding — a name that resolved to a public address at subscribe time and to a private one at delivery time is refused on the delivery connection; the private receiver gets nothing', async () => {
    const { rebindSubscribe, hitsBeforeRebind, hitsAfterRebind } = await scenario();
    expect(rebindSubscribe).toBe('ok');
    // Before: the public receiver got the challenge and the first event, over verified TLS.
    expect(hitsBeforeRebind['1.2.3.4']).toEqual([
      { kind: 'verification', verified: true },
      { kind: 'event', verified: true },
    ]);
    expect(hitsAfterRebind['10.20.30.40']).toBeUndefined();
    expect(hitsAfterRebind['1.2.3.4']).toHaveLength(2);
  }, 90_000);

  it('the development switch lets exactly http://127.0.0.1 through: localhost, 127.0.0.2 and private addresses stay -32602', async () => {
    const { devLoopback, devLocalhost, devPrivate, devOtherLoopback, hitsAtEnd } = await scenario();
    expect(devLoopback).toBe('ok');
    for (const error of [devLocalhost, devPrivate, devOtherLoopback]) expect(error).toMatchObject({ code: -32602 });
    expect(hitsAtEnd['127.0.0.1']).toEqual([{ kind: 'verification', verified: true }]);
    expect(hitsAtEnd['10.20.30.40']).toBeUndefined();
    expect(hitsAtEnd['169.254.169.254']).toBeUndefined();
    expect(hitsAtEnd['100.64.0.9']).toBeUndefined();
  }, 90_000);
});
