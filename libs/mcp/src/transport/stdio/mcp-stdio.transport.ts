import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import { McpLegacyWire } from '../../legacy/legacy-wire.profile.js';
import { McpLegacyWireService } from '../../legacy/legacy-wire.service.js';
import { McpCallRunner } from '../../server/call.runner.js';
import { McpModernWire } from '../../server/modern-wire.profile.js';
import { MCP_EVENT_BUS, type McpEventBus } from '../../protocol/mcp-event-bus.interface.js';
import { McpStdioConnection } from './stdio.connection.js';
import type { StdioOutput } from './stdio-output.interface.js';

/**
 * The stdio transport of `McpModule` (spec 2026-07-28: basic/transports/stdio): opens connections on pairs of streams,
 * and stops the ones still open when the application shuts down. `McpStdio` is the public way in; this provider is what
 * it finds in the application context.
 */
@Injectable()
export class McpStdioTransport implements BeforeApplicationShutdown {
  private readonly connections = new Set<McpStdioConnection>();

  constructor(
    private readonly runner: McpCallRunner,
    private readonly modern: McpModernWire,
    private readonly legacyWire: McpLegacyWire,
    private readonly legacy: McpLegacyWireService,
    private readonly options: McpResolvedOptions,
    @Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus,
  ) {}

  /** Serves MCP on `input` / `output` until the input ends or the connection is closed. */
  connect(input: NodeJS.ReadableStream, output: StdioOutput): McpStdioConnection {
    const connection = new McpStdioConnection(
      {
        runner: this.runner,
        modern: this.modern,
        legacyWire: this.legacyWire,
        legacy: this.legacy,
        options: this.options,
        bus: this.bus,
      },
      input,
      output,
    );
    this.connections.add(connection);
    void connection.closed.then(() => this.connections.delete(connection));
    connection.start();
    return connection;
  }

  /** `app.close()` while connections are open: their calls see `ctx.signal` abort and are answered before the end. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.connections].map((connection) => connection.close('abort')));
  }
}
