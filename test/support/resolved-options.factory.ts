import type { McpModuleOptions } from '../../libs/mcp/src/config/mcp-options.interface.js';
import { McpResolvedOptions } from '../../libs/mcp/src/config/resolved-options.js';

/** Module options resolved as `McpModule` resolves them, for unit specs: a server named `test`, version 1, plus `options`. */
export function resolvedOptions(options: Partial<McpModuleOptions> = {}): McpResolvedOptions {
  return new McpResolvedOptions({ name: 'test', version: '1', ...options });
}
