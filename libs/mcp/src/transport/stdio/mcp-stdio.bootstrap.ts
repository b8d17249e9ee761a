import { mcpServerToken } from '../../config/server-tokens.js';
import { requireServerChoice } from '../../config/server-lookup.util.js';
import {
  type DynamicModule,
  type INestApplicationContext,
  Logger,
  type LoggerService,
  type LogLevel,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { McpStdioOptions, McpStdioServer } from './mcp-stdio-options.interface.js';
import { McpStdioTransport } from './mcp-stdio.transport.js';
import { McpStderrLogger } from './stderr.logger.js';
import { redirectStdout, type StdoutRedirection } from './stdout.guard.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** How `serve` treats the context and the process. */
interface Ownership {
  closeApp: boolean;
  exitOnClose: boolean;
  handleSignals: boolean;
  redirection?: StdoutRedirection;
}

/**
 * Runs a Nest application as an MCP server on stdin/stdout — how hosts such as Claude Desktop, IDEs and agent
 * runners launch local servers. The same `AppModule`, handlers, guards and interceptors serve both the 2026-07-28
 * wire and the 2025-11-25 `initialize` handshake; no HTTP server is started.
 *
 * @example
 * ```ts
 * // src/stdio.ts
 * import { McpStdio } from 'nest-mcp';
 * import { AppModule } from './app.module.js';
 *
 * await McpStdio.run(AppModule);
 * ```
 */
export class McpStdio {
  /**
   * Creates an application context for `module` (logging to stderr), serves MCP on the process's stdin and stdout,
   * and ends the process when stdin closes (after answering the calls in flight) or on SIGINT/SIGTERM.
   */
  static async run(module: Type<unknown> | DynamicModule, options: McpStdioOptions = {}): Promise<McpStdioServer> {
    // Installed before Nest logs anything: from here on, stdout carries protocol lines only.
    const redirection = (options.redirectStdout ?? options.stdout === undefined) ? redirectStdout() : undefined;
    let app: INestApplicationContext;
    try {
      app = await NestFactory.createApplicationContext(module, {
        logger: stderrLogger(options.logger),
        abortOnError: false,
      });
    } catch (error) {
      redirection?.restore();
      throw error;
    }
    const ownStreams = options.stdin === undefined && options.stdout === undefined;
    try {
      return serve(app, options, {
        closeApp: true,
        exitOnClose: options.exitOnClose ?? ownStreams,
        handleSignals: options.handleSignals ?? true,
        redirection,
      });
    } catch (error) {
      await app.close();
      throw error;
    }
  }

  /**
   * Serves MCP on stdio (or the given streams) from an application context you created — a `TestingModule`, or an
   * HTTP application that should answer on both. The context is initialised if needed and left open when the
   * connection ends; signals and process exit are yours unless the options say otherwise.
   */
  static async attach(app: INestApplicationContext, options: McpStdioOptions = {}): Promise<McpStdioServer> {
    const redirection = (options.redirectStdout ?? options.stdout === undefined) ? redirectStdout() : undefined;
    await app.init();
    return serve(app, options, {
      closeApp: false,
      exitOnClose: options.exitOnClose ?? false,
      handleSignals: options.handleSignals ?? false,
      redirection,
    });
  }
}

function serve(app: INestApplicationContext, options: McpStdioOptions, ownership: Ownership): McpStdioServer {
  let transport: McpStdioTransport;
  try {
    requireServerChoice(app, options.server, 'McpStdio');
  } catch (error) {
    ownership.redirection?.restore();
    throw error;
  }
  try {
    transport =
      options.server === undefined
        ? app.get(McpStdioTransport, { strict: false })
        : app.get<string, McpStdioTransport>(mcpServerToken(options.server, 'stdio'), { strict: false });
  } catch {
    ownership.redirection?.restore();
    throw new Error(
      options.server === undefined
        ? 'McpStdio: the application has no McpModule; import McpModule.forRoot(...) in the module you run'
        : `McpStdio: the application has no server named "${options.server}" (McpModule.forRoot({ name: '${options.server}', … }))`,
    );
  }
  const output = options.stdout ?? ownership.redirection?.output ?? process.stdout;
  const connection = transport.connect(options.stdin ?? process.stdin, output);

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    void connection.close('abort');
  };
  if (ownership.handleSignals) for (const signal of SIGNALS) process.on(signal, onSignal);

  const closed = connection.closed.then(async () => {
    for (const signal of SIGNALS) process.removeListener(signal, onSignal);
    if (ownership.closeApp) {
      try {
        await app.close();
      } catch (error) {
        new Logger('McpStdio').error('Closing the application failed', (error as Error)?.stack ?? String(error));
        process.exitCode ??= 1;
      }
    }
    ownership.redirection?.restore();
    if (ownership.exitOnClose) process.exit();
  });
  return {
    app,
    closed,
    close: async () => {
      await connection.close('abort');
      await closed;
    },
  };
}

/** The context's logger: never stdout. */
function stderrLogger(logger: LoggerService | LogLevel[] | false | undefined): LoggerService | LogLevel[] | false {
  if (logger === false) return false;
  if (Array.isArray(logger)) return new McpStderrLogger({ logLevels: logger });
  return logger ?? new McpStderrLogger();
}
