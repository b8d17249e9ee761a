import { type ChildProcess, fork } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/**
 * Bench servers as child processes, one each, driven over IPC (see servers/server-runtime.ts). Every child ever
 * started is tracked and killed when the harness exits, however it exits.
 */

const SERVERS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'servers');
const READY_TIMEOUT_MS = 60_000;
const STDERR_TAIL = 4_000;

const live = new Set<ChildProcess>();

export function killAllServers(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  live.clear();
}

process.once('exit', killAllServers);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAllServers();
    process.exit(130);
  });
}

export interface ServerLaunch {
  /** File under dist/bench/bench/servers, e.g. `nest-mcp.server.js`, or an absolute path (a baseline's build). */
  script: string;
  args: string[];
}

export interface CpuUsage {
  user: number;
  system: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class ServerProcess {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private stderr = '';
  /** Process start → listening, measured by the child (`performance.now()` at listen). */
  bootMs = 0;
  /** fork() → ready message, measured here (includes process creation). */
  spawnToReadyMs = 0;
  port = 0;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
  ) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('message', (message: { id?: number; ok?: boolean; value?: unknown; error?: string }) => {
      if (message?.id === undefined) return;
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(new Error(`${this.label}: ${message.error}`));
    });
    child.once('exit', (code, signal) => {
      live.delete(child);
      for (const [id, waiting] of this.pending) {
        clearTimeout(waiting.timer);
        waiting.reject(
          new Error(`${this.label} exited (code ${code}, signal ${signal}) during a request${this.stderrTail()}`),
        );
        this.pending.delete(id);
      }
    });
  }

  /** Forks a server and resolves once it listens; `execArgv` e.g. `['--expose-gc']`. */
  static start(label: string, launch: ServerLaunch, execArgv: string[] = ['--expose-gc']): Promise<ServerProcess> {
    const started = performance.now();
    const child = fork(resolve(SERVERS_DIR, launch.script), [...launch.args, '--port', '0'], {
      execArgv,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    live.add(child);
    const server = new ServerProcess(label, child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${label} did not start within ${READY_TIMEOUT_MS / 1000} s${server.stderrTail()}`));
      }, READY_TIMEOUT_MS);
      const onReady = (message: { type?: string; port?: number; bootMs?: number }) => {
        if (message?.type !== 'ready') return;
        clearTimeout(timer);
        child.off('message', onReady);
        server.port = Number(message.port);
        server.bootMs = Number(message.bootMs);
        server.spawnToReadyMs = performance.now() - started;
        resolve(server);
      };
      child.on('message', onReady);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${label} exited before listening (code ${code}, signal ${signal})${server.stderrTail()}`));
      });
    });
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  request<T>(cmd: string, args?: unknown, timeoutMs = 60_000): Promise<T> {
    if (!this.alive) return Promise.reject(new Error(`${this.label} is not running${this.stderrTail()}`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.label}: no answer to ${cmd} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.child.send({ id, cmd, args });
    });
  }

  cpuUsage(): Promise<CpuUsage> {
    return this.request<CpuUsage>('cpu');
  }

  /** Memory of the child; `gc` forces two full collections first (servers run with --expose-gc). */
  memory(gc = false): Promise<NodeJS.MemoryUsage> {
    return this.request<NodeJS.MemoryUsage>('mem', { gc });
  }

  /** Asks the child to close gracefully; kills it if it has not exited within `graceMs`. */
  async stop(graceMs = 3_000): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try {
      this.child.send({ id: 0, cmd: 'stop' });
    } catch {
      // The channel is already gone: kill below.
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  stderrTail(): string {
    return this.stderr.trim() ? `\n--- stderr of ${this.label} (tail) ---\n${this.stderr.trim()}` : '';
  }
}
