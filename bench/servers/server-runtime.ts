import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';

/**
 * What every bench server shares: its command line, the IPC protocol the harness drives it with, and shutdown.
 *
 * A server is started by the harness with `child_process.fork` (IPC channel) or alone from a terminal. Over IPC it
 * announces `{ type: 'ready', port, bootMs }` once listening (`bootMs`: process start → listening, from
 * `performance.now()`, whose origin is the process start) and answers `{ id, cmd }` requests with
 * `{ id, ok, value | error }`. It exits when the harness disconnects, so a crashed harness leaves no server behind.
 */

export type AdapterName = 'express' | 'fastify';

export interface ServerArgs {
  port: number;
  adapter: AdapterName;
  /** Generated tools to declare besides `echo` and `count` (bootstrap workload). */
  tools: number;
  /** `--tasks`: also serve `echo_task` (`task: 'optional'`) with room for many tasks (tasks workload). */
  tasks: boolean;
}

/** `--port N`, `--adapter express|fastify`, `--tools N`, `--tasks` (also `--flag=value`); the host is always 127.0.0.1. */
export function parseServerArgs(argv: string[] = process.argv.slice(2)): ServerArgs {
  const values = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    if (eq > 0) values.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (index + 1 < argv.length && !argv[index + 1].startsWith('--')) values.set(arg.slice(2), argv[++index]);
    else values.set(arg.slice(2), 'true');
  }
  const adapter = (values.get('adapter') ?? 'express').toLowerCase();
  if (adapter !== 'express' && adapter !== 'fastify') {
    throw new Error(`Unknown adapter "${adapter}": expected "express" or "fastify"`);
  }
  const port = Number(values.get('port') ?? 0);
  const tools = Number(values.get('tools') ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid --port "${values.get('port')}"`);
  if (!Number.isInteger(tools) || tools < 0 || tools > 100_000)
    throw new Error(`Invalid --tools "${values.get('tools')}"`);
  return { port, adapter, tools, tasks: values.get('tasks') === 'true' };
}

export const HOST = '127.0.0.1';

/** An extra IPC command a server offers (e.g. the requestState micro-benchmark). */
export type CommandHandler = (args: unknown) => unknown;

export interface ServerHandle {
  /** Human-readable name, printed when started alone. */
  name: string;
  port: number;
  /** Path of the endpoint that is printed when started alone. */
  path?: string;
  close(): Promise<void>;
  commands?: Record<string, CommandHandler>;
}

interface IpcRequest {
  id: number;
  cmd: string;
  args?: unknown;
}

type GcFunction = () => void;

function memory(collect: boolean): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: GcFunction }).gc;
  if (collect && gc) {
    // Two passes: the first may only queue finalizers (weak references, closed sockets).
    gc();
    gc();
  }
  return process.memoryUsage();
}

let profiler: Session | undefined;

/** Starts the V8 CPU profiler in this process (sampling interval in µs). */
async function startProfile(intervalUs: number): Promise<boolean> {
  if (profiler) return false;
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await profiler.post('Profiler.start');
  return true;
}

/** Stops the profiler and writes the `.cpuprofile` (the format `node --cpu-prof` writes) to `path`. */
async function stopProfile(path: string): Promise<boolean> {
  if (!profiler) return false;
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = undefined;
  writeFileSync(path, JSON.stringify(profile));
  return true;
}

let closing = false;

async function shutdown(handle: ServerHandle, code: number): Promise<never> {
  if (!closing) {
    closing = true;
    // Never hang on a stuck close: the harness expects the process to go away.
    const timer = setTimeout(() => process.exit(code), 3000);
    timer.unref();
    try {
      await handle.close();
    } catch {
      // Exiting anyway.
    }
  }
  process.exit(code);
}

/**
 * Wires the IPC protocol and signals for a listening server, then announces it: over IPC when forked by the
 * harness, on stdout when started alone.
 */
export function announce(handle: ServerHandle): void {
  const builtIn: Record<string, CommandHandler> = {
    cpu: () => process.cpuUsage(),
    mem: (args) => memory(Boolean((args as { gc?: boolean } | undefined)?.gc)),
    'profile-start': (args) => startProfile(Number((args as { intervalUs?: number } | undefined)?.intervalUs ?? 200)),
    'profile-stop': (args) => stopProfile(String((args as { path: string }).path)),
    stop: () => {
      setImmediate(() => void shutdown(handle, 0));
      return true;
    },
  };
  const commands = { ...builtIn, ...(handle.commands ?? {}) };

  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutdown(handle, 0));

  if (process.send) {
    process.on('message', (message: IpcRequest) => {
      const command = commands[message?.cmd];
      if (!command) {
        process.send?.({ id: message?.id, ok: false, error: `unknown command ${String(message?.cmd)}` });
        return;
      }
      Promise.resolve()
        .then(() => command(message.args))
        .then(
          (value) => process.send?.({ id: message.id, ok: true, value }),
          (error: unknown) =>
            process.send?.({ id: message.id, ok: false, error: String((error as Error)?.stack ?? error) }),
        );
    });
    // The harness went away (crashed or finished): do not outlive it.
    process.once('disconnect', () => void shutdown(handle, 0));
    process.send({ type: 'ready', port: handle.port, bootMs: performance.now() });
  } else {
    console.log(
      `${handle.name} listening on http://${HOST}:${handle.port}${handle.path ?? '/mcp'} (ready in ${Math.round(performance.now())} ms)`,
    );
  }
}

/** Runs a server's `main`, turning a startup failure into a non-zero exit with the error on stderr. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
