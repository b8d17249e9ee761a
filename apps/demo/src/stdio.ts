import { OPS_CONSOLE_SERVER } from './console-servers.constants.js';
import { McpStdio } from 'nest-mcp';
import { AppModule } from './app.module.js';

/**
 * The operations console over stdio, for hosts that launch MCP servers as child processes (docs/stdio.md):
 *
 *   npm run build:demo && node dist/apps/demo/apps/demo/src/stdio.js
 *
 * Same module as the HTTP entry point (main.ts); no port is opened. Logs go to stderr, stdout carries only MCP.
 */
// #region docs:entry
// The server for everyone (the admin server is HTTP only, behind its admins' tokens).
await McpStdio.run(AppModule, { server: OPS_CONSOLE_SERVER });
// #endregion docs:entry
