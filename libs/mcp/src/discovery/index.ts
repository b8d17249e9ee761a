export * from './mcp-definition.error.js';
export * from './mcp-metadata.accessor.js';
export * from './mcp.explorer.js';
export * from './mcp.registry.js';
export * from './registry-entries.interface.js';
