import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { IncidentEvents, IncidentService } from './incident-events.js';

@Module({
  imports: [
    McpModule.forRoot({
      name: 'incidents',
      version: '1.0.0',
      // Webhook subscriptions need an authenticated principal: here an auth guard's user (or use `auth`).
      principal: (request) => (request as { user?: { sub?: string } }).user?.sub,
      // #region docs:events-options
      events: {
        profile: 'sep-3415', // or 'openai': the -32011… codes ChatGPT uses, an idempotent unsubscribe
        pollIntervalMs: 5_000, // nextPollMs
        heartbeatMs: 20_000, // push streams, at most 30 s
        webhooks: {
          defaultTtlMs: 60 * 60_000,
          maxAttempts: 5,
          retryWindowMs: 15 * 60_000,
          // Development only: lets a receiver on http://127.0.0.1 subscribe. Never on in production.
          allowInsecureLoopback: process.env.MCP_DEV_LOOPBACK_WEBHOOKS === '1',
        },
      },
      // #endregion docs:events-options
      requestState: { keys: [process.env.MCP_STATE_KEY ?? ''].filter(Boolean) },
    }),
  ],
  providers: [IncidentEvents, IncidentService],
})
export class IncidentsEventsModule {}
