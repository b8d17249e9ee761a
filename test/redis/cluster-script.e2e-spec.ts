import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { McpWebhookReceiver } from 'nest-mcp/testing';
import { eventsPost, resultOf } from '../support/events.util.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta, type RawResponse } from '../support/raw-request.util.js';
import { REPO_ROOT } from '../support/forked-server.js';

/** `npm run demo:cluster` (scripts/demo-cluster.mjs) as a user runs it: start, use through nginx, Ctrl-C, nothing left. */

/** The script may have to run `nest build demo` first (10–20 s on two cores), then starts five processes. */
const START_TIMEOUT_MS = 150_000;

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run demo:cluster', () => {
  let child: ChildProcess | undefined;

  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('serves the demo through nginx from three replicas on Redis, delivers its events from any replica, and Ctrl-C stops every process it started', {
    timeout: START_TIMEOUT_MS + 60_000,
  }, async () => {
    let stdout = '';
    let stderr = '';
    child = spawn(process.execPath, ['scripts/demo-cluster.mjs'], {
      cwd: REPO_ROOT,
      // MCP_DEV_WEBHOOKS: the demo's development switch (a loopback webhook receiver, the dev-user principal).
      env: { ...process.env, PORT: '0', NO_COLOR: '1', MCP_DEV_WEBHOOKS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child!.once('exit', (code, signal) => resolve({ code, signal })),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no banner after ${START_TIMEOUT_MS} ms:\n${stderr}`)),
        START_TIMEOUT_MS,
      );
      child!.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('Ctrl-C stops everything')) clearTimeout(timer), resolve();
      });
      void exited.then(
        ({ code, signal }) => (
          clearTimeout(timer), reject(new Error(`demo:cluster exited (${code ?? signal}):\n${stderr}`))
        ),
      );
    });

    const url = /MCP endpoint\s+(http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stdout)!;
    const replicas = [...stdout.matchAll(/127\.0\.0\.1:(\d+) \(pid (\d+)\)/g)].map((match) => ({
      port: Number(match[1]),
      pid: Number(match[2]),
    }));
    const redisPort = Number(/Redis\s+redis:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)![1]);
    const logsDir = /logs\s+(\S+)\/replica-\*\.log/.exec(stdout)![1];
    expect(replicas).toHaveLength(3);
    expect(stdout).toContain(`npx nest-mcp tools ${url[1]}`);

    // Three calls through the balancer: three replicas answer, one after the other.
    const upstreams: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (new Headers(init?.headers).get('mcp-method') === 'tools/call')
        upstreams.push(response.headers.get('x-upstream') ?? '');
      return response;
    };
    const client = await connectClient(new URL(url[1]), { fetch: recording });
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: 'get_service', arguments: { name: 'checkout-api' } });
      expect(result.structuredContent).toMatchObject({ name: 'checkout-api' });
    }
    await client.close();
    expect(new Set(upstreams)).toEqual(new Set(replicas.map((replica) => `127.0.0.1:${replica.port}`)));
    const health = await fetch(`http://127.0.0.1:${replicas[0].port}/health`);
    expect(health.status).toBe(200);

    // Events from any replica: a webhook subscribed through the balancer gets every incident, whichever replica's tool
    // emitted it (and whichever replica's worker delivered it); a poll cursor resumes on whichever replica it reaches.
    const receiver = await McpWebhookReceiver.start();
    try {
      const endpoint = new URL(url[1]);
      const args = { service: 'checkout-api' };
      resultOf(
        await eventsPost(endpoint, 'events/subscribe', {
          name: 'incident.opened',
          arguments: args,
          delivery: { url: receiver.url, secret: receiver.secret },
        }),
      );
      const start = resultOf(await eventsPost(endpoint, 'events/poll', { name: 'incident.opened', arguments: args }));
      const emittedBy: string[] = [];
      for (let i = 0; i < 3; i++) {
        const opened: RawResponse = await mcpPost(endpoint, {
          method: 'tools/call',
          params: { name: 'open_incident', arguments: { ...args, title: `Cluster incident ${i}` } },
          meta: requestMeta(),
        });
        expect(opened.text).toContain('Opened INC-');
        emittedBy.push(opened.headers.get('x-upstream') ?? '');
      }
      expect(new Set(emittedBy).size).toBe(3);
      const deliveries = [
        await receiver.nextEvent(10_000),
        await receiver.nextEvent(10_000),
        await receiver.nextEvent(10_000),
      ];
      expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
      expect(deliveries.map((delivery) => delivery.json.data.title).sort()).toEqual([
        'Cluster incident 0',
        'Cluster incident 1',
        'Cluster incident 2',
      ]);
      const polled = resultOf(
        await eventsPost(endpoint, 'events/poll', { name: 'incident.opened', arguments: args, cursor: start.cursor }),
      );
      expect(polled.events.map((event: { eventId: string }) => event.eventId).sort()).toEqual(
        deliveries.map((delivery) => delivery.json.eventId).sort(),
      );
    } finally {
      await receiver.close();
    }

    child.kill('SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });
    for (const replica of replicas) expect(running(replica.pid), `replica pid ${replica.pid}`).toBe(false);
    expect(await listening(Number(url[2])), 'nginx port').toBe(false);
    expect(await listening(redisPort), 'Redis port').toBe(false);
    expect(existsSync(logsDir), 'the temporary directory').toBe(false);
  });
});
