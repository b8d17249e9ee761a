import type { McpLogLevel } from './mcp-wire.interface.js';

/**
 * What a handler's context takes from the module options (internal): resolved once (`McpResolvedOptions.callSettings`)
 * and carried on every call's scope by the call runner, so that a context opened anywhere (a tool call, a task's
 * `beforeTask` on either wire, a guard run before a task exists) reads the same settings.
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
