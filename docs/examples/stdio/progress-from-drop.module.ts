import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:progress-from-drop
@Module({
  imports: [
    McpModule.forRoot({
      name: 'builder',
      version: '1.0.0',
      // Requests without a progress token: drop the wrapped commands' progress lines instead of writing them to stderr.
      progressFromWithoutToken: 'drop',
    }),
  ],
})
export class QuietBuilderModule {}
// #endregion docs:progress-from-drop
