import { Test } from '@nestjs/testing';
import { McpTestingClient } from 'nest-mcp/testing';
import { AppModule } from './two-servers.module.js';

// #region docs:testing-per-server
export async function adminToolNames(): Promise<string[]> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const admin = await McpTestingClient.create(moduleRef, { server: 'admin' });
  const names = (await admin.listTools()).map((tool) => tool.name); // drain_queue, purge_caches
  await moduleRef.close();
  return names;
}
// #endregion docs:testing-per-server
