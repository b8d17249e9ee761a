import { ConsoleLogger, type ConsoleLoggerOptions, type LogLevel } from '@nestjs/common';

/**
 * Nest's `ConsoleLogger`, every level on stderr. On stdio, stdout belongs to the protocol (spec 2026-07-28:
 * basic/transports/stdio), while the stock logger prints `log`, `warn`, `debug` and `verbose` to stdout. Colours
 * default to whether stderr is a terminal, so a host that records the server's stderr gets plain text.
 * `McpStdio.run` installs it.
 *
 * @example NestFactory.createApplicationContext(AppModule, { logger: new McpStderrLogger() })
 */
export class McpStderrLogger extends ConsoleLogger {
  constructor(options: ConsoleLoggerOptions = {}) {
    super({ ...options, colors: options.colors ?? Boolean(process.stderr.isTTY) });
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, unknown>,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack, params);
  }
}
