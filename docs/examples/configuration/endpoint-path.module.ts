import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:endpoint-path
@Module({
  imports: [McpModule.forRoot({ name: 'agents', version: '1.0.0', path: '/agents/mcp' })],
})
export class AgentsModule {}
// #endregion docs:endpoint-path
