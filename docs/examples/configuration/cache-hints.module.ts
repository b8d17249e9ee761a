import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

/** A server whose tool list may be cached by anyone for a minute. */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      // #region docs:cache-hints
      cacheHints: {
        default: { ttlMs: 0, cacheScope: 'private' },
        toolsList: { ttlMs: 60_000, cacheScope: 'public' }, // the tool list changes only with deployments
      },
      // #endregion docs:cache-hints
    }),
  ],
})
export class CacheHintsModule {}
