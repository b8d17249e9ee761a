import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';

// #region docs:session-route
@Module({
  imports: [
    McpRedisModule.forRoot({ url: process.env.REDIS_URL, keyPrefix: 'ops-console' }),
    McpModule.forRootAsync({
      inject: [McpRedis],
      useFactory: (redis: McpRedis) =>
        redis.serverOptions({
          name: 'ops-console',
          version: '1.0.0',
          allowedHosts: ['mcp.example.com'],
          requestState: { keys: (process.env.MCP_STATE_KEYS ?? '').split(',').filter(Boolean) },
          // This replica's own token (r1, r2… or the pod name): its 2025-11-25 session ids start with `<route>.`
          sessionRoute: process.env.POD_NAME,
        }),
    }),
  ],
})
export class SessionRouteModule {}
// #endregion docs:session-route
