import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:principal
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops',
      version: '1.0.0',
      requestState: { keys: [process.env.MCP_STATE_KEY!] },
      principal: (request) => (request as { user?: { sub?: string } }).user?.sub, // set by your HTTP auth guard
    }),
  ],
})
export class AppModule {}
// #endregion docs:principal
