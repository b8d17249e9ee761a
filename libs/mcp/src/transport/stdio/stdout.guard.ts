import type { StdioOutput } from './stdio-output.interface.js';

/** What `redirectStdout` did, and how to undo it. */
export interface StdoutRedirection {
  /** The real stdout, for protocol lines only. */
  readonly output: StdioOutput;
  /** Puts `process.stdout.write` back. */
  restore(): void;
}

/**
 * Makes stdout protocol-only for the whole process: `process.stdout.write` — and so `console.log`, `console.info`,
 * `console.debug`, Nest's stock logger and any library printing there — now writes to stderr, and the returned
 * `output` is the one way left to reach the real stdout. A stray `console.log` in a handler then shows up in the
 * host's log instead of corrupting the JSON-RPC stream.
 */
export function redirectStdout(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): StdoutRedirection {
  const original = stdout.write;
  const protocolWrite = original.bind(stdout) as (chunk: string, callback?: (error?: Error | null) => void) => boolean;
  stdout.write = ((...args: unknown[]) =>
    (stderr.write as (...forwarded: unknown[]) => boolean).apply(stderr, args)) as typeof stdout.write;
  return {
    output: {
      write: (chunk, callback) => protocolWrite(chunk, callback),
      once: (event, listener) => stdout.once(event, listener),
      on: (event, listener) => stdout.on(event, listener),
    },
    restore: () => {
      stdout.write = original;
    },
  };
}
