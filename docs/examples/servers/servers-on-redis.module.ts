import { Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from 'nest-mcp';
import { InMemoryWebhookDeliveryQueue } from 'nest-mcp/backend';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';

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

@Module({ providers: [OrderTools] })
export class OrdersModule {}

@Module({ providers: [CacheAdminTools] })
export class AdminModule {}

// #region docs:servers-on-redis
/** The same keys on every replica (`openssl rand -base64 32`). */
const requestState = { keys: (process.env.MCP_STATE_KEYS ?? '').split(',').filter(Boolean) };

@Module({
  imports: [
    McpRedisModule.forRoot({ url: process.env.REDIS_URL }),
    McpModule.forRootAsync({
      name: 'shop',
      include: [OrdersModule],
      inject: [McpRedis],
      // `include` sits beside useFactory, out of serverOptions' sight: { server } names the server, so that its
      // runtime entries live under <keyPrefix>:registry:server:shop.
      useFactory: (redis: McpRedis) =>
        redis.serverOptions({ name: 'shop', version: '1.0.0', requestState }, { server: 'shop' }),
    }),
    // #region docs:named-server-on-redis
    McpModule.forRootAsync({
      name: 'admin',
      path: '/admin/mcp',
      include: [AdminModule],
      inject: [McpRedis],
      useFactory: (redis: McpRedis) =>
        redis.serverOptions(
          // One McpRedis's BullMQ webhook worker serves one server: the admin server, which offers no event types,
          // keeps a queue of its own.
          {
            name: 'admin',
            version: '1.0.0',
            requestState,
            events: { webhooks: { queue: new InMemoryWebhookDeliveryQueue() } },
          },
          { server: 'admin' },
        ),
    }),
    // #endregion docs:named-server-on-redis
    OrdersModule,
    AdminModule,
  ],
})
export class AppModule {}
// #endregion docs:servers-on-redis
