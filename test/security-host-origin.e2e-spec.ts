import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from './support/app.factory.js';
import { mcpHeaders, mcpPostViaHttp, requestMeta, type RawPost } from './support/raw-request.util.js';
import { expectError, expectResult, rawHttp, textOf } from './support/wire-response.util.js';

/**
 * DNS rebinding on a non-loopback address (issue #13, item 2), for real: a network namespace of its own with a veth
 * pair in the benchmarking range (198.18.0.0/15, RFC 2544), the server bound to 0.0.0.0 inside it (a child process
 * run with `ip netns exec`), and requests from this namespace to the namespace's veth address — a connection that
 * arrives on a non-loopback address, as behind Docker or Kubernetes. Needs root and iproute2 (`ip netns`); CI runs
 * as root. Elsewhere the tests are skipped and the reason is in their titles.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LOADER = join(ROOT, 'test/support/ts-child.loader.mjs');
const FIXTURE = join(ROOT, 'test/fixtures/host-origin-main.fixture.ts');
/** The DNS name the second application of the fixture lists in `allowedHosts`. */
const LISTED_HOST = 'mcp.test';

interface Namespace {
  name: string;
  /** The namespace's own address, where the server listens (with every other address of the namespace). */
  address: string;
}

/** `ip …`, failing with its stderr. */
function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A /30 of 198.18.0.0/15 chosen from the pid (parallel runs do not clash), skipping any already on this host. */
function freeSubnet(): [string, string] {
  const used = ip('-o', '-4', 'addr', 'show', 'to', '198.18.0.0/15');
  for (let step = 0; step < 32_768; step++) {
    const block = (process.pid + step) % 32_768;
    const base = 198 * 2 ** 24 + 18 * 2 ** 16 + block * 4;
    const quad = (value: number) => [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
    const [near, far] = [quad(base + 1), quad(base + 2)];
    if (!used.includes(` ${near}/`) && !used.includes(` ${far}/`)) return [near, far];
  }
  throw new Error('no free /30 in 198.18.0.0/15');
}

/** Creates the namespace and its veth pair, or says why it cannot. Interface names stay within 15 characters. */
function createNamespace(): Namespace | string {
  if (process.getuid?.() !== 0) return 'not root: creating a network namespace needs root (CI runs as root)';
  const name = `mcp-host-origin-${process.pid}`;
  const [outside, inside] = [`vho${process.pid}o`, `vho${process.pid}i`];
  try {
    const [near, far] = freeSubnet();
    ip('netns', 'add', name);
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    ip('addr', 'add', `${near}/30`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('-n', name, 'addr', 'add', `${far}/30`, 'dev', inside);
    ip('-n', name, 'link', 'set', inside, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
    return { name, address: far };
  } catch (error) {
    deleteNamespace(name, outside);
    return `ip failed: ${((error as { stderr?: string }).stderr || (error as Error).message).trim()}`;
  }
}

/** Deleting the namespace also deletes the veth pair; the outside end is removed too in case the move failed. */
function deleteNamespace(name: string, outside?: string): void {
  for (const args of [['netns', 'del', name], ...(outside ? [['link', 'del', outside]] : [])]) {
    try {
      ip(...args);
    } catch {
      // Not there (never created, or already gone with the namespace).
    }
  }
}

const namespace = createNamespace();
const skipReason = typeof namespace === 'string' ? namespace : undefined;
if (skipReason) console.warn(`security-host-origin: skipped, ${skipReason}`);
const skipped = (title: string) => (skipReason ? `${title} (skipped: ${skipReason})` : title);

// CI runs as root with iproute2: there, a namespace that cannot be made is a failure, not a silent skip.
it.runIf(skipReason && process.env.CI)('a network namespace can be created (required in CI)', () => {
  throw new Error(`security-host-origin needs a network namespace in CI: ${skipReason}`);
});

afterAll(() => {
  if (typeof namespace !== 'string') deleteNamespace(namespace.name);
});

/** The fixture process inside the namespace, and the URLs of its two applications there. */
interface Fixture {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  /** Module defaults (no `allowedHosts`). */
  defaults: URL;
  /** `allowedHosts: [LISTED_HOST]`. */
  listed: URL;
}

async function startFixture(ns: Namespace, adapter: string): Promise<Fixture> {
  const child = spawn('ip', ['netns', 'exec', ns.name, process.execPath, '--import', LOADER, FIXTURE, adapter, LISTED_HOST], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const deadline = Date.now() + 25_000;
  for (;;) {
    const ready = /^\{"ready":(.*)\}$/m.exec(stdout);
    if (ready) {
      const ports = JSON.parse(ready[1]) as { defaults: number; listed: number };
      const url = (port: number) => new URL(`http://${ns.address}:${port}/mcp`);
      return { child, stdout: () => stdout, defaults: url(ports.defaults), listed: url(ports.listed) };
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

describe.each(ADAPTERS)('DNS rebinding on a non-loopback address (%s, server on 0.0.0.0 in its own network namespace)', (adapter) => {
  let fixture: Fixture;

  beforeAll(async () => {
    if (typeof namespace !== 'string') fixture = await startFixture(namespace, adapter);
  }, 30_000);

  afterAll(async () => {
    if (fixture && fixture.child.exitCode === null) {
      fixture.child.kill('SIGKILL');
      await once(fixture.child, 'exit');
    }
  });

  /** How many times `record` ran on an application, read with a request that must succeed. */
  async function runsOn(url: URL, host?: string): Promise<string> {
    return textOf(expectResult(await mcpPostViaHttp(url, toolCall('runsSoFar', host)), 'tools/call'));
  }

  it.skipIf(skipReason)(skipped('the connection really arrives on a non-loopback address'), () => {
    expect(fixture.defaults.hostname).toMatch(/^198\.1[89]\./);
  });

  it.skipIf(skipReason)(skipped('Host attacker.example with a matching Origin → 403 / -32600 naming allowedHosts; the tool did not run'), async () => {
    const host = `attacker.example:${fixture.defaults.port}`;
    const refused = await mcpPostViaHttp(fixture.defaults, toolCall('record', host, `http://${host}`));
    expect(expectError(refused, 403, -32600, 'either').message).toContain('allowedHosts');
    const withoutOrigin = await mcpPostViaHttp(fixture.defaults, toolCall('record', host));
    expectError(withoutOrigin, 403, -32600, 'either');
    expect(await runsOn(fixture.defaults)).toBe('0');
  });

  it.skipIf(skipReason)(skipped('Host = the IP literal → 200 and the tool runs, with or without a same-address Origin'), async () => {
    const before = Number(await runsOn(fixture.defaults));
    const plain = await mcpPostViaHttp(fixture.defaults, toolCall('record'));
    expect(textOf(expectResult(plain, 'tools/call'))).toBe(String(before + 1));
    const sameOrigin = await mcpPostViaHttp(fixture.defaults, toolCall('record', fixture.defaults.host, fixture.defaults.origin));
    expect(textOf(expectResult(sameOrigin, 'tools/call'))).toBe(String(before + 2));
  });

  it.skipIf(skipReason)(skipped('Host localhost (a port-forward) with a loopback Origin → 200'), async () => {
    const response = await mcpPostViaHttp(fixture.defaults, toolCall('runsSoFar', `localhost:${fixture.defaults.port}`, 'http://localhost:6274'));
    expectResult(response, 'tools/call');
  });

  it.skipIf(skipReason)(skipped('an IP-literal Host with an attacker Origin → 403 / -32600; the tool did not run'), async () => {
    const before = await runsOn(fixture.defaults);
    const refused = await mcpPostViaHttp(fixture.defaults, toolCall('record', undefined, 'http://attacker.example'));
    expect(expectError(refused, 403, -32600, 'either').message).toContain('allowedOrigins');
    expect(await runsOn(fixture.defaults)).toBe(before);
  });

  it.skipIf(skipReason)(skipped('no Host header (HTTP/1.0) → 403 / -32600'), async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'record', arguments: {}, _meta: requestMeta() } });
    const headerLines = Object.entries(mcpHeaders('tools/call', { name: 'record' })).map(([name, value]) => `${name}: ${value}`);
    const request = `POST /mcp HTTP/1.0\r\n${headerLines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const answer = await rawHttp(fixture.defaults, request);
    expect(answer.status).toBe(403);
    expect((JSON.parse(answer.body) as { error: { code: number } }).error.code).toBe(-32600);
    await runsOn(fixture.defaults);
  });

  it.skipIf(skipReason)(skipped('with allowedHosts: the listed name → 200; attacker.example → 403; the next good request works'), async () => {
    const listedHost = `${LISTED_HOST}:${fixture.listed.port}`;
    expect(textOf(expectResult(await mcpPostViaHttp(fixture.listed, toolCall('record', listedHost)), 'tools/call'))).toBe('1');
    const attacker = `attacker.example:${fixture.listed.port}`;
    expectError(await mcpPostViaHttp(fixture.listed, toolCall('record', attacker, `http://${attacker}`)), 403, -32600, 'either');
    // The IP literal is not listed: with allowedHosts only the listed names pass.
    expectError(await mcpPostViaHttp(fixture.listed, toolCall('record')), 403, -32600, 'either');
    expect(await runsOn(fixture.listed, listedHost)).toBe('1');
  });

  it.skipIf(skipReason)(skipped('logs the Host policy once per application at startup, under McpHttpTransport, never per request'), () => {
    const lines = fixture.stdout().split('\n').filter((line) => line.includes('[McpHttpTransport]'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("allowedHosts: ['mcp.example.com']");
    expect(lines[1]).toContain(LISTED_HOST);
  });
});
