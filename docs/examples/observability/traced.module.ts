import { Injectable, Module } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { McpArgs, McpModule, McpTool } from 'nest-mcp';

// #region docs:otel-own-span
@Injectable()
export class InventoryTools {
  private readonly tracer = trace.getTracer('inventory');

  @McpTool({
    description: 'Counts the stock of a SKU',
    input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  })
  async stock(@McpArgs('sku') sku: string): Promise<number> {
    // A child of the `tools/call stock` span: the handler runs inside it.
    return this.tracer.startActiveSpan('inventory.lookup', async (span) => {
      try {
        span.setAttribute('inventory.warehouse', 'north');
        return sku.length * 10;
      } finally {
        span.end();
      }
    });
  }
}
// #endregion docs:otel-own-span

// #region docs:otel-options
@Module({
  imports: [
    McpModule.forRoot({
      name: 'inventory',
      version: '1.0.0',
      telemetry: {
        // Off by default: arguments and results are user data.
        recordToolArguments: false,
        recordToolResults: false,
        // Your own codes for the caller's mistakes: no error.type, span status left UNSET.
        clientErrorCodes: [-31001],
      },
    }),
  ],
  providers: [InventoryTools],
})
export class InventoryModule {}
// #endregion docs:otel-options

// #region docs:otel-off
@Module({ imports: [McpModule.forRoot({ name: 'quiet', version: '1.0.0', telemetry: false })] })
export class QuietModule {}
// #endregion docs:otel-off
