import { Injectable, Module } from '@nestjs/common';
import { McpArgs, McpCtx, McpForm, McpInput, McpModule, McpTool, type McpToolContext } from 'nest-mcp';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';

@Injectable()
export class OrderTools {
  @McpTool({ description: 'Looks an order up' })
  get_order(): string {
    return 'order 42: shipped';
  }

  /** A task of the shop server: its rounds run on the shop's own queue, on any replica. */
  @McpTool({
    description: 'Packs an order (a task)',
    input: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    task: 'required',
  })
  pack_order(@McpArgs('order') order: string): string {
    return `order ${order}: packed`;
  }
}

const Confirm = McpForm.object({ confirm: McpForm.boolean({ title: 'Reindex now?' }) });

@Injectable()
export class CacheAdminTools {
  @McpTool({ description: 'Purges every cache' })
  purge_caches(): string {
    return 'purged';
  }

  /** A task of the admin server that asks first: every round, the asking one and the answered one, runs here. */
  @McpTool({
    description: 'Rebuilds the search index after a confirmation (a task)',
    input: { type: 'object', properties: { index: { type: 'string' } }, required: ['index'] },
    task: 'required',
  })
  async rebuild_index(@McpArgs('index') index: string, @McpCtx() ctx: McpToolContext): Promise<string> {
    const answer = await ctx.elicit('confirm', McpInput.form(`Rebuild the index ${index}?`, Confirm));
    return answer.action === 'accept' && answer.content.confirm ? `index ${index}: rebuilt` : `index ${index}: kept`;
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
      // runtime entries, tasks, task queue, event log and webhooks are its own (under <keyPrefix>:server:shop).
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
        redis.serverOptions({ name: 'admin', version: '1.0.0', requestState }, { server: 'admin' }),
    }),
    // #endregion docs:named-server-on-redis
    OrdersModule,
    AdminModule,
  ],
})
export class AppModule {}
// #endregion docs:servers-on-redis
