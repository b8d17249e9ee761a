export * from './completion-provider.interface.js';
export * from './mcp-metadata.constants.js';
export * from './mcp-param-type.enum.js';
export * from './mcp-params.decorator.js';
export * from './mcp-prompt.decorator.js';
export * from './mcp-resource-template.decorator.js';
export * from './mcp-resource.decorator.js';
export * from './mcp-tool.decorator.js';
