import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export { freePort };

/** A real `redis-server` (Debian package) on a free loopback port, in a temporary directory of its own. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly dir: string;
  /**
   * Stops the server (SIGTERM, or SIGKILL with `hard`; SIGKILL anyway if it is still running 5 s after a SIGTERM) and
   * waits until it exited. Its data directory stays.
   */
  stop(options?: { hard?: boolean }): Promise<void>;
  /** Starts it again on the same port and directory (with AOF on, the data is back). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  dispose(): Promise<void>;
}

/** Options of `startRedisServer`. */
export interface RedisServerOptions {
  /** Append-only file on (`appendonly yes`, `appendfsync always`), so a restart keeps every write. Default false. */
  aof?: boolean;
  /** A fixed port (default: a free one). */
  port?: number;
}

/** How long a server may take to exit after SIGTERM before it gets SIGKILL. */
const STOP_GRACE_MS = 5_000;

/**
 * Every redis-server started by this process and still running, shared by every copy of this module in the process
 * (vitest evaluates it once per test file, in the same worker process). They are killed when the process exits.
 */
const RUNNING: Set<ChildProcess> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for('nest-mcp.test.redis-servers')
] ??= (() => {
  const running = new Set<ChildProcess>();
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
  return running;
})()) as Set<ChildProcess>;

/**
 * A watchdog for a server: a shell that waits on a pipe from this process and kills the server when the pipe closes,
 * i.e. when this process is gone without running its 'exit' hook (killed by a signal, such as a test run interrupted
 * with Ctrl-C or a worker killed on a timeout). The watchdog ends with its server. It runs in a process group
 * of its own, so that the signal that stops the test run does not reach it before it did its job.
 */
function watchdogFor(pid: number): ChildProcess {
  const watchdog = spawn('sh', ['-c', `read _; kill -9 ${pid} 2>/dev/null`], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  watchdog.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as Socket | null)?.unref();
  return watchdog;
}

/** Whether `redis-server` is on this machine (`.ci/run` installs it). */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/**
 * Starts `redis-server` on 127.0.0.1 and resolves once it accepts connections. Throws (the test fails) when the
 * binary is missing: `.ci/run` installs it, so a missing server is a broken machine, not a reason to skip.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'nest-mcp-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
    '--loglevel',
    'warning',
    ...(options.aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
  ];
  let child: ChildProcess | undefined;
  let log = '';
  const start = async (): Promise<void> => {
    const spawned = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = spawned;
    RUNNING.add(spawned);
    const watchdog = spawned.pid === undefined ? undefined : watchdogFor(spawned.pid);
    spawned.once('exit', () => {
      RUNNING.delete(spawned);
      watchdog?.kill('SIGKILL');
    });
    spawned.stdout?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    spawned.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    const failed = new Promise<never>((_, reject) => {
      spawned.once('error', reject);
      spawned.once('exit', (code) => reject(new Error(`redis-server exited (${code}) on port ${port}: ${log}`)));
    });
    await Promise.race([waitForPing(port), failed]);
  };
  const stop = async ({ hard = false } = {}): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(hard ? 'SIGKILL' : 'SIGTERM');
    const forced = setTimeout(() => running.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(forced);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    stop,
    start,
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once a PING on `port` answers PONG (polling every 20 ms, up to 10 s). */
async function waitForPing(port: number): Promise<void> {
  const { Socket } = await import('node:net');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.setTimeout(500);
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => (socket.destroy(), resolve(false)));
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
    if (pong) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
