import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPS_SCRIPTS_CLIENT_ID, OPS_VIEWER_CLIENT_ID } from '../../scripts/auth/demo-authorization-server.js';
import { mcpPost } from '../support/raw-request.util.js';

/**
 * `npm start -- --auth` (scripts/start-demo.mjs): the ops console with authorization, in a child process, with the local
 * authorization server the script starts. What it prints is enough to get a token (the curl line, run as printed) and
 * to connect; the official client finds its way from the 401; the console's tools need the scopes the demo gives them.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The script may have to run `nest build demo` first, which takes 10–20 s on two cores. */
const START_TIMEOUT_MS = 120_000;
const SECRET = 'demo-auth-e2e-secret-0123456789';
const PROTOCOL = '2026-07-28';
const run = promisify(execFile);
/** The demo's tools by the scope they need (apps/demo/README.md, "Run with authorization"). */
const READ_TOOLS = ['get_service', 'incident_report', 'list_services'];
const WRITE_TOOLS = [
  'build_package',
  'connect_pagerduty',
  'deploy_release',
  'open_incident',
  'restart_service',
  'scale_service',
];
const ADMIN_TOOLS = ['decommission_service', 'set_feature_flag'];

/** Resolves once both the authorization line and the server's MCP URL were printed; rejects if the script exits first. */
function waitForStart(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const ready = () =>
      /listening on http:\/\/127\.0\.0\.1:\d+\/mcp/.test(output.stdout) && /Authorization on:/.test(output.stdout);
    const timer = setTimeout(
      () => finish(new Error(`not started after ${START_TIMEOUT_MS} ms:\n${output.stderr}`)),
      START_TIMEOUT_MS,
    );
    const onData = () => ready() && finish();
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`start-demo exited early (code ${code}, signal ${signal}):\n${output.stderr}`));
    const finish = (error?: Error) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** The printed line that follows `label` (the script prints each command on the line after its label). */
function commandAfter(stderr: string, label: string): string {
  const lines = stderr.split('\n').map((line) => line.replace(/^\[start-demo\] {0,3}/, ''));
  const index = lines.findIndex((line) => line.startsWith(label));
  if (index < 0 || !lines[index + 1]) throw new Error(`"${label}" was not printed:\n${stderr}`);
  return lines[index + 1].trim();
}

describe('npm start -- --auth (the demo with a local authorization server)', () => {
  let child: ChildProcess | undefined;
  const output = { stdout: '', stderr: '' };
  let mcpUrl: URL;
  /** The admin server (decommission_service, set_feature_flag), a resource of its own. */
  let adminUrl: URL;
  let issuer: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    child = spawn(process.execPath, ['scripts/start-demo.mjs', '--auth'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        NO_COLOR: '1',
        AUTH_CLIENT_SECRET: SECRET,
        AUTH_ISSUER: '',
        AUTH_RESOURCE: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    await waitForStart(child, output);
    mcpUrl = new URL(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output.stdout)![1]);
    adminUrl = new URL('/admin/mcp', mcpUrl);
    issuer = /Authorization on: bearer tokens from (\S+) for/.exec(output.stdout)![1];
  }, START_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('serves its own URL as the resource, with a local issuer on loopback, and refuses a request without a token', async () => {
    expect(issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output.stdout).toContain(`for ${mcpUrl.href}`);
    const refused = await mcpPost(mcpUrl, { method: 'tools/list' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${mcpUrl.origin}/.well-known/oauth-protected-resource/mcp", scope="ops:read ops:write"`,
    );
    const metadata = await (await fetch(`${mcpUrl.origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({
      resource: mcpUrl.href,
      authorization_servers: [issuer],
      scopes_supported: ['ops:read', 'ops:write'],
    });
  });

  it('the printed curl lines, run as printed, get a token (client credentials) and list the tools with it', async () => {
    expect(output.stderr).toContain(`client secret: ${SECRET}`);
    const tokenLine = commandAfter(output.stderr, 'Get a token (client credentials):');
    const callLine = commandAfter(output.stderr, 'Call a tool with it:');
    const { stdout } = await run('bash', ['-c', `set -e; ${tokenLine}; test -n "$TOKEN"; ${callLine}`], {
      timeout: 30_000,
    });
    const answer = JSON.parse(stdout) as { result: { tools: Array<{ name: string }> } };
    // ops:read ops:write: the read and write tools, not the admin ones.
    const names = answer.result.tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...READ_TOOLS, ...WRITE_TOOLS]));
    for (const name of ADMIN_TOOLS) expect(names, `${name} is listed for ops:read ops:write`).not.toContain(name);
  });

  it('the official client (client credentials) finds the authorization server from the 401 and calls a tool', async () => {
    const client = new Client(
      { name: 'demo-auth-e2e', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
    );
    clients.push(client);
    const provider = new ClientCredentialsProvider({
      clientId: OPS_SCRIPTS_CLIENT_ID,
      clientSecret: SECRET,
      expectedIssuer: issuer,
    });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const result = await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ name: 'checkout-api', status: 'running' });
    // The scope came from the challenge: the demo's basic set.
    expect(provider.tokens()?.scope).toBe('ops:read ops:write');
  });

  it('a read-only caller sees only the read tools and gets 403 insufficient_scope on a changing one', async () => {
    const client = new Client(
      { name: 'demo-auth-e2e', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
    );
    clients.push(client);
    // ops-viewer may only have ops:read: the authorization server grants that much of the requested ops:read ops:write.
    const provider = new ClientCredentialsProvider({
      clientId: OPS_VIEWER_CLIENT_ID,
      clientSecret: SECRET,
      expectedIssuer: issuer,
    });
    await client.connect(
      new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, onInsufficientScope: 'throw' }),
    );
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(READ_TOOLS));
    for (const name of [...WRITE_TOOLS, ...ADMIN_TOOLS])
      expect(names, `${name} is listed for ops:read`).not.toContain(name);
    const refused = await client
      .callTool({ name: 'scale_service', arguments: { name: 'checkout-api', replicas: 3 } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'InsufficientScopeError', requiredScope: 'ops:read ops:write' });
  });

  it('an admin token (ops:admin implies write and read) may use the admin tools: the scope replaces the x-ops-role header', async () => {
    const client = new Client(
      { name: 'demo-auth-e2e', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL } } },
    );
    clients.push(client);
    const token = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${OPS_SCRIPTS_CLIENT_ID}:${SECRET}`).toString('base64')}` },
      // The admin tools are on the admin server (/admin/mcp), a resource of its own: the token is asked for it.
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: adminUrl.href, scope: 'ops:admin' }),
    }).then(async (response) => ((await response.json()) as { access_token: string }).access_token);
    await client.connect(new StreamableHTTPClientTransport(adminUrl, { authProvider: { token: async () => token } }));
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(ADMIN_TOOLS);
    const flag = await client.callTool({
      name: 'set_feature_flag',
      arguments: { flag: 'cost-insights', enabled: true },
    });
    expect(flag.isError).toBeFalsy();
    expect(flag.content).toEqual([{ type: 'text', text: 'cost-insights is now on.' }]);
  });
});
