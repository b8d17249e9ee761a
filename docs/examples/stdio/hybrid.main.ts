import { NestFactory } from '@nestjs/core';
import { McpStdio, McpStderrLogger } from 'nest-mcp';
import { AppModule } from '../getting-started/app.module.js';

// #region docs:hybrid
// One process, both transports: HTTP on a port, and MCP on stdin/stdout.
const app = await NestFactory.create(AppModule, { logger: new McpStderrLogger() });
await app.listen(3000, '127.0.0.1');
const stdio = await McpStdio.attach(app);
await stdio.closed; // stdin ended (the host went away)
await app.close();
// #endregion docs:hybrid
