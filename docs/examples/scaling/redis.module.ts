import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';

// #region docs:redis-module
@Module({
  imports: [
    // One Redis for every replica of this server; keyPrefix separates two servers that share a Redis.
    McpRedisModule.forRoot({ url: process.env.REDIS_URL, keyPrefix: 'ops-console' }),
    McpModule.forRootAsync({
      inject: [McpRedis],
      // serverOptions adds the Redis event bus, task store, BullMQ runner and single-use requestState store,
      // and refuses to start without requestState.keys: every replica must seal rounds with the same keys.
      useFactory: (redis: McpRedis) =>
        redis.serverOptions({
          name: 'ops-console',
          version: '1.0.0',
          allowedHosts: ['mcp.example.com'],
          requestState: { keys: (process.env.MCP_STATE_KEYS ?? '').split(',').filter(Boolean) },
        }),
    }),
  ],
})
export class AppModule {}
// #endregion docs:redis-module
