import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:modern-only
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      // Only 2026-07-28 clients: no initialize, no sessions, no GET stream; nothing is kept between requests.
      legacyWire: false,
    }),
  ],
})
export class AppModule {}
// #endregion docs:modern-only
