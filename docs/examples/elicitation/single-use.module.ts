import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:single-use
@Module({
  imports: [
    McpModule.forRoot({
      name: 'payments',
      version: '1.0.0',
      requestState: {
        keys: [process.env.MCP_STATE_KEY!],
        // Each state is accepted once. `true` remembers used states in this process only; with several replicas,
        // pass a store they share instead (an object with consume(stateId, expiresAt), e.g. over Redis).
        singleUse: true,
      },
      principal: (request) => (request as { user?: { sub?: string } }).user?.sub,
    }),
  ],
})
export class PaymentsModule {}
// #endregion docs:single-use
