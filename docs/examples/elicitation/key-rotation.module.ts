import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:key-rotation
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops',
      version: '1.0.0',
      requestState: {
        keys: [process.env.MCP_STATE_KEY!, process.env.MCP_PREVIOUS_STATE_KEY!], // the first seals, both open
        ttlMs: 10 * 60_000,
      },
    }),
  ],
})
export class AppModule {}
// #endregion docs:key-rotation
