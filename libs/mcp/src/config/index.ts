export * from './mcp-module-definition.js';
export * from './mcp-options.interface.js';
export * from './resolved-options.js';
export * from './mcp-extras.constants.js';
