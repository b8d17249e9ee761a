import type { McpRegistryState } from '../protocol/registry-state.interface.js';

/**
 * The `registryState` of the server called `name`, checked against what the server is: a state that says it is
 * another server's is refused, and so is the unscoped state of a per-server store (`forServer`) given to a server with
 * `include` — that is one of several servers, and it would share its runtime entries with the application's server
 * without `include` (which `McpModule.forRootAsync` cannot tell `McpRedis.serverOptions` on its own). A state that
 * says nothing of servers is taken as given. Throws at startup, naming the fix.
 * @internal
 */
export function checkRegistryStateScope(
  state: McpRegistryState | undefined,
  name: string,
  include: readonly unknown[] | undefined,
): McpRegistryState | undefined {
  if (!state) return undefined;
  if (state.server !== undefined && state.server !== name) {
    throw new Error(
      `McpModule "${name}": its registryState is the one of the server "${state.server}", whose runtime entries it ` +
        `would list: give it its own, e.g. redis.serverOptions(options, { server: '${name}' })`,
    );
  }
  if (state.server === undefined && include !== undefined && typeof state.forServer === 'function') {
    throw new Error(
      `McpModule "${name}": the server has "include" but its registryState is the unscoped one, which a server ` +
        'without "include" uses too: a tool registered at run time on either would be listed by both. Name the ' +
        `server: redis.serverOptions(options, { server: '${name}' }) (in forRootAsync's useFactory, where "include" ` +
        'is not among the options serverOptions sees)',
    );
  }
  return state;
}
