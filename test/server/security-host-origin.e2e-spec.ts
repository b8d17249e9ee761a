import type { ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../support/app.factory.js';
import { mcpHeaders, mcpPostViaHttp, requestMeta, type RawPost } from '../support/raw-request.util.js';
import { requireUserNamespaces, spawnNamespaced } from '../support/user-namespace.js';
import { expectError, expectResult, rawHttp, textOf } from '../support/wire-response.util.js';

/**
 * DNS rebinding on a non-loopback address (issue #13, item 2), for real: a network namespace of its own (a user and
 * network namespace, `unshare -rn`, so no root is needed: test/support/user-namespace.ts) with a veth pair in the
 * benchmarking range (198.18.0.0/15, RFC 2544), the server bound to 0.0.0.0 inside it, and requests that arrive on
 * the namespace's veth address from its other end — a connection between two non-loopback addresses, as behind
 * Docker or Kubernetes. The test process stays outside: it reaches the server through a Unix socket per application
 * that the fixture relays into the namespace (the URL, and so the Host header, names the namespace's address). Where
 * namespaces cannot be made, the tests fail and say how to allow them.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const LOADER = join(ROOT, 'test/support/ts-child.loader.mjs');
const FIXTURE = join(ROOT, 'test/fixtures/host-origin-main.fixture.ts');
/** The DNS name the second application of the fixture lists in `allowedHosts`. */
const LISTED_HOST = 'mcp.test';
/** The two ends of the veth pair: the server listens on every address, requests arrive on SERVER from CLIENT. */
const [CLIENT, SERVER] = ['198.18.0.1', '198.18.0.2'];
/** Inside the namespace (as its root): loopback and both ends of a veth pair up, one address each. */
const SETUP = [
  'ip link set lo up',
  'ip link add vho0 type veth peer name vho1',
  `ip addr add ${CLIENT}/30 dev vho0`,
  `ip addr add ${SERVER}/30 dev vho1`,
  'ip link set vho0 up',
  'ip link set vho1 up',
];

/** The fixture process inside the namespace, and the URLs of its two applications there. */
interface Fixture {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout: () => string;
  /** Module defaults (no `allowedHosts`). */
  defaults: URL;
  /** `allowedHosts: [LISTED_HOST]`. */
  listed: URL;
  /** The relay socket that reaches the application of `url`. */
  socketOf(url: URL): string;
}

async function startFixture(adapter: string, relays: string): Promise<Fixture> {
  const child = spawnNamespaced(
    { setup: SETUP, command: [process.execPath, '--import', LOADER, FIXTURE, adapter, LISTED_HOST] },
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', RELAY_DIR: relays, RELAY_TO: SERVER, RELAY_FROM: CLIENT } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const deadline = Date.now() + 25_000;
  for (;;) {
    const ready = /^\{"ready":(.*)\}$/m.exec(stdout);
    if (ready) {
      const ports = JSON.parse(ready[1]) as { defaults: number; listed: number };
      const url = (port: number) => new URL(`http://${SERVER}:${port}/mcp`);
      return {
        child,
        stdout: () => stdout,
        defaults: url(ports.defaults),
        listed: url(ports.listed),
        socketOf: (target) => join(relays, `${target.port}.sock`),
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the fixture did not start (exit ${child.exitCode}):\n${stderr}\n${stdout}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A `tools/call` as `mcpPostViaHttp` sends it, with the given Host and Origin (`undefined`: node's default Host). */
function toolCall(name: string, host?: string, origin?: string): RawPost {
  const headers: Record<string, string> = {};
  if (host !== undefined) headers.host = host;
  if (origin !== undefined) headers.origin = origin;
  return { method: 'tools/call', params: { name, arguments: {} }, headers };
}

describe.each(ADAPTERS)(
  'DNS rebinding on a non-loopback address (%s, server on 0.0.0.0 in its own network namespace)',
  (adapter) => {
    let fixture: Fixture;
    let relays: string;

    beforeAll(async () => {
      requireUserNamespaces('security-host-origin');
      relays = mkdtempSync(join(tmpdir(), 'host-origin-'));
      fixture = await startFixture(adapter, relays);
    }, 30_000);

    afterAll(async () => {
      if (fixture && fixture.child.exitCode === null) {
        fixture.child.kill('SIGKILL');
        await once(fixture.child, 'exit');
      }
      if (relays) rmSync(relays, { recursive: true, force: true });
    });

    /** `mcpPostViaHttp` through the relay of `url`'s application. */
    const post = (url: URL, call: RawPost) => mcpPostViaHttp(url, { ...call, socketPath: fixture.socketOf(url) });

    /** How many times `record` ran on an application, read with a request that must succeed. */
    async function runsOn(url: URL, host?: string): Promise<string> {
      return textOf(expectResult(await post(url, toolCall('runsSoFar', host)), 'tools/call'));
    }

    it('the connection really arrives on a non-loopback address, from another one', async () => {
      expect(fixture.defaults.hostname).toBe(SERVER);
      const seen = JSON.parse(
        textOf(expectResult(await post(fixture.defaults, toolCall('connection')), 'tools/call')),
      ) as { local: string; remote: string };
      expect(seen).toEqual({ local: SERVER, remote: CLIENT });
    });

    it('Host attacker.example with a matching Origin → 403 / -32600 naming allowedHosts; the tool did not run', async () => {
      const host = `attacker.example:${fixture.defaults.port}`;
      const refused = await post(fixture.defaults, toolCall('record', host, `http://${host}`));
      expect(expectError(refused, 403, -32600, 'either').message).toContain('allowedHosts');
      const withoutOrigin = await post(fixture.defaults, toolCall('record', host));
      expectError(withoutOrigin, 403, -32600, 'either');
      expect(await runsOn(fixture.defaults)).toBe('0');
    });

    it('Host = the IP literal → 200 and the tool runs, with or without a same-address Origin', async () => {
      const before = Number(await runsOn(fixture.defaults));
      const plain = await post(fixture.defaults, toolCall('record'));
      expect(textOf(expectResult(plain, 'tools/call'))).toBe(String(before + 1));
      const sameOrigin = await post(
        fixture.defaults,
        toolCall('record', fixture.defaults.host, fixture.defaults.origin),
      );
      expect(textOf(expectResult(sameOrigin, 'tools/call'))).toBe(String(before + 2));
    });

    it('Host localhost (a port-forward) with a loopback Origin → 200', async () => {
      const response = await post(
        fixture.defaults,
        toolCall('runsSoFar', `localhost:${fixture.defaults.port}`, 'http://localhost:6274'),
      );
      expectResult(response, 'tools/call');
    });

    it('an IP-literal Host with an attacker Origin → 403 / -32600; the tool did not run', async () => {
      const before = await runsOn(fixture.defaults);
      const refused = await post(fixture.defaults, toolCall('record', undefined, 'http://attacker.example'));
      expect(expectError(refused, 403, -32600, 'either').message).toContain('allowedOrigins');
      expect(await runsOn(fixture.defaults)).toBe(before);
    });

    it('no Host header (HTTP/1.0) → 403 / -32600', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'record', arguments: {}, _meta: requestMeta() },
      });
      const headerLines = Object.entries(mcpHeaders('tools/call', { name: 'record' })).map(
        ([name, value]) => `${name}: ${value}`,
      );
      const request = `POST /mcp HTTP/1.0\r\n${headerLines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const answer = await rawHttp(fixture.defaults, request, 5_000, fixture.socketOf(fixture.defaults));
      expect(answer.status).toBe(403);
      expect((JSON.parse(answer.body) as { error: { code: number } }).error.code).toBe(-32600);
      await runsOn(fixture.defaults);
    });

    it('with allowedHosts: the listed name → 200; attacker.example → 403; the next good request works', async () => {
      const listedHost = `${LISTED_HOST}:${fixture.listed.port}`;
      expect(textOf(expectResult(await post(fixture.listed, toolCall('record', listedHost)), 'tools/call'))).toBe('1');
      const attacker = `attacker.example:${fixture.listed.port}`;
      expectError(
        await post(fixture.listed, toolCall('record', attacker, `http://${attacker}`)),
        403,
        -32600,
        'either',
      );
      // The IP literal is not listed: with allowedHosts only the listed names pass.
      expectError(await post(fixture.listed, toolCall('record')), 403, -32600, 'either');
      expect(await runsOn(fixture.listed, listedHost)).toBe('1');
    });

    it('logs the Host policy once per application at startup, under McpHttpTransport, never per request', () => {
      const lines = fixture
        .stdout()
        .split('\n')
        .filter((line) => line.includes('[McpHttpTransport]'));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain("allowedHosts: ['mcp.example.com']");
      expect(lines[1]).toContain(LISTED_HOST);
    });
  },
);
