import type { McpLogLevel } from '../protocol/mcp-wire.interface.js';

/**
 * What a handler's context takes from the module options (internal). `McpMrtrService` hands it to the context with
 * the call's ledger, the one object every feature passes from the module to the context it opens.
 */
export interface McpCallSettings {
  /** The message channel is on (module option `logging` is not `false`): off, `ctx.log` sends nothing. */
  readonly logging: boolean;
  /** The level of a `ctx.log(data)` call that names none (`logging.defaultLevel`). */
  readonly defaultLogLevel: McpLogLevel;
  /**
   * What `ctx.progressFrom` does with a command's progress lines when the request carries no progress token
   * (`progressFromWithoutToken`): write them unchanged to the server's stderr, or drop them.
   */
  readonly progressFromWithoutToken: 'stderr' | 'drop';
}

/** The settings of a module with no options for them, and of contexts opened without a ledger from `McpMrtrService`. */
export const DEFAULT_CALL_SETTINGS: McpCallSettings = Object.freeze({
  logging: true,
  defaultLogLevel: 'info',
  progressFromWithoutToken: 'stderr',
});
