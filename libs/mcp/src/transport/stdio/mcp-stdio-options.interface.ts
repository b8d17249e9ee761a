import type { INestApplicationContext, LoggerService, LogLevel } from '@nestjs/common';

/** Options of `McpStdio.run` and `McpStdio.attach`. */
export interface McpStdioOptions {
  /** Where requests are read from. Default `process.stdin`. */
  stdin?: NodeJS.ReadableStream;
  /** Where messages are written. Default `process.stdout` (protected by `redirectStdout`). */
  stdout?: NodeJS.WritableStream;
  /**
   * `run` only: the logger of the application context. Default `new McpStderrLogger()`; a list of levels keeps that
   * logger with those levels; `false` silences Nest. A logger of your own must not write to stdout.
   */
  logger?: LoggerService | LogLevel[] | false;
  /**
   * Points `process.stdout.write` (and so `console.log`) at stderr while the server runs, so that nothing but
   * protocol lines reaches stdout. Default: true when serving on `process.stdout`.
   */
  redirectStdout?: boolean;
  /** Graceful stop on SIGINT and SIGTERM (a second signal ends the process at once). Default: true for `run`. */
  handleSignals?: boolean;
  /** End the process once the server stopped (stdin ended, a signal, `close()`). Default: true for `run` on the process's own streams. */
  exitOnClose?: boolean;
  /** With several servers in the application (docs/servers.md), the `name` of the one to serve. Default: the only one. */
  server?: string;
}

/** A running stdio server. */
export interface McpStdioServer {
  /** The Nest application context it serves. */
  readonly app: INestApplicationContext;
  /** Resolves once the server stopped: calls answered, output flushed, and (for `run`) the context closed. */
  readonly closed: Promise<void>;
  /** Stops the server as on SIGTERM: calls in flight see `ctx.signal` abort and are answered, up to `shutdownTimeoutMs`. */
  close(): Promise<void>;
}
