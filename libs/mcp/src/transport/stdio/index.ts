export * from './mcp-stdio-options.interface.js';
export * from './mcp-stdio.bootstrap.js';
export * from './mcp-stdio.transport.js';
export * from './stderr.logger.js';
export * from './stdout.guard.js';
