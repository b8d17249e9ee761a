import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:streaming-options
@Module({
  imports: [
    McpModule.forRoot({
      name: 'reports',
      version: '1.0.0',
      streaming: { maxQueuedFrames: 32, maxQueuedBytes: 16 * 1024 },
    }),
  ],
})
export class ReportsModule {}
// #endregion docs:streaming-options
