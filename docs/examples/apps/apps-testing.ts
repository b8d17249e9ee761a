import type { INestApplicationContext } from '@nestjs/common';
import { McpTestingClient, withAppsExtension } from 'nest-mcp/testing';

/** What docs/apps.md shows of the testing kit, as a function a test calls with its application. */
export async function checkReleaseBoard(app: INestApplicationContext): Promise<void> {
  // #region docs:testing
  const client = await McpTestingClient.create(app);
  const views = await client.listViews(); // resources/list entries with the MCP Apps MIME type
  const board = await client.readView('ui://releases/board'); // throws unless it is exactly one MCP Apps document
  board.html; // '<!DOCTYPE html>…'
  board.ui; // its _meta.ui: { prefersBorder: true, … }

  // App-only tools are listed only to clients that declare the extension (per request on 2026-07-28).
  const forModel = await client.listTools(); // no release_status
  const forHost = await client.listTools({ capabilities: withAppsExtension() }); // with release_status
  // #endregion docs:testing
  const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);
  if (views.length !== 1 || !board.html.startsWith('<!DOCTYPE html>') || board.ui?.prefersBorder !== true) {
    throw new Error('the release board example lost its view');
  }
  if (names(forModel).includes('release_status') || !names(forHost).includes('release_status')) {
    throw new Error('the release board example lost its app-only tool');
  }
}
