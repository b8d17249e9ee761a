import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:production-options
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      // DNS rebinding: every name clients use; needed whenever the server listens beyond loopback.
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://console.example.com'], // only if browser apps call the endpoint directly
      // Multi-round calls: the same keys on every replica, newest first; states bound to the authenticated caller.
      requestState: { keys: (process.env.MCP_REQUEST_STATE_KEYS ?? '').split(',').filter(Boolean), ttlMs: 5 * 60_000 },
      principal: (request) => (request as { user?: { sub?: string } }).user?.sub,
      // Bounds sized to the traffic, tighter than the defaults.
      maxBodyBytes: 1024 * 1024,
      callTimeoutMs: 60_000,
      maxListenStreams: 2_000,
      shutdownTimeoutMs: 15_000,
    }),
  ],
})
export class AppModule {}
// #endregion docs:production-options
