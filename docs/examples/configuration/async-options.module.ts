// #region docs:for-root-async
import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { AppConfig, AppConfigModule } from './app-config.js';

@Module({
  imports: [
    McpModule.forRootAsync({
      path: '/mcp', // static: not from the factory
      imports: [AppConfigModule],
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        name: 'ops-console',
        version: config.getOrThrow('APP_VERSION'),
        allowedHosts: config.get('MCP_ALLOWED_HOSTS')?.split(','),
        requestState: {
          keys: config.getOrThrow('MCP_REQUEST_STATE_KEYS').split(','),
          ttlMs: Number(config.get('MCP_REQUEST_STATE_TTL_MS') ?? 300_000),
        },
        principal: (request) => (request as { user?: { sub?: string } }).user?.sub,
      }),
    }),
  ],
})
export class AppModule {}
// #endregion docs:for-root-async
