import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:keys-from-env
const keys = (process.env.MCP_REQUEST_STATE_KEYS ?? '')
  .split(',')
  .map((key) => key.trim())
  .filter(Boolean);

@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      requestState: { keys },
    }),
  ],
})
export class AppModule {}
// #endregion docs:keys-from-env
