export * from './body-capture.installer.js';
export * from './mcp-http.controller.js';
export * from './mcp-http.transport.js';
