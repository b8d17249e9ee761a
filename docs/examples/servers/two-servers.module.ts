import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { InjectMcpPublisher, InjectMcpRegistry, McpModule, McpPublisher, McpRegistry, McpTool } from 'nest-mcp';

@Injectable()
export class OrderTools {
  @McpTool({ description: 'Looks an order up' })
  get_order(): string {
    return 'order 42: shipped';
  }
}

@Injectable()
export class CacheAdminTools {
  @McpTool({ description: 'Purges every cache' })
  purge_caches(): string {
    return 'purged';
  }
}

// #region docs:inject-per-server
/** Adds a tool to the admin server only, and tells that server's listeners about a changed resource. */
@Injectable()
export class AdminPlugins implements OnModuleInit {
  constructor(
    @InjectMcpRegistry('admin') private readonly registry: McpRegistry,
    @InjectMcpPublisher('admin') private readonly publisher: McpPublisher,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.registry.registerTool({ name: 'drain_queue', description: 'Drains the job queue' }, () => 'drained');
  }

  configChanged(): void {
    void this.publisher.resourceUpdated('config://admin');
  }
}
// #endregion docs:inject-per-server

@Module({ providers: [OrderTools] })
export class OrdersModule {}

@Module({ providers: [CacheAdminTools, AdminPlugins] })
export class AdminModule {}

// #region docs:two-servers
@Module({
  imports: [
    // Customers: the order tools only, at /mcp.
    McpModule.forRoot({ name: 'shop', version: '1.0.0', include: [OrdersModule] }),
    // Operators: the admin tools only, at /admin/mcp, with options of their own.
    McpModule.forRoot({
      name: 'admin',
      version: '1.0.0',
      path: '/admin/mcp',
      include: [AdminModule],
      instructions: 'Operations tools. Every call is audited.',
      maxCallsInFlight: 50,
      legacyWire: false,
    }),
    OrdersModule,
    AdminModule,
  ],
})
export class AppModule {}
// #endregion docs:two-servers
