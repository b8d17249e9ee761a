import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:progress-option
@Module({
  imports: [
    McpModule.forRoot({
      name: 'builder',
      version: '1.0.0',
      // Requests without a progress token: their progress goes to stderr as NDJSON ProgressEvents.
      progress: 'stderr',
    }),
  ],
})
export class BuilderModule {}
// #endregion docs:progress-option
