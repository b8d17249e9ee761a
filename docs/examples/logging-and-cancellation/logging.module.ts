import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:logging-default-level
@Module({
  imports: [
    McpModule.forRoot({
      name: 'indexer',
      version: '1.0.0',
      logging: { defaultLevel: 'notice' }, // ctx.log(data) without a level logs at notice
    }),
  ],
})
export class IndexerModule {}
// #endregion docs:logging-default-level

// #region docs:logging-off
@Module({
  imports: [
    McpModule.forRoot({
      name: 'quiet',
      version: '1.0.0',
      // No message channel: no `logging` capability, logging/setLevel unknown, ctx.log sends nothing.
      logging: false,
    }),
  ],
})
export class QuietModule {}
// #endregion docs:logging-off
