import type { McpModuleOptions } from './mcp-options.interface.js';

/** A backend that may be kept per named server: it says which server's it is (`undefined`: no named server's). */
interface ServerScoped {
  readonly server?: string;
  readonly forServer?: unknown;
}

/**
 * Checks, at startup, that the backends of the server called `name` are its own: a registry state, event bus, task
 * store or runner, event log, webhook subscription store or delivery queue that says it is another server's is refused
 * (its runtime entries, tasks, events or deliveries would be that server's). So is the unscoped registry state of a
 * per-server store (`forServer`) given to a server with `include`: that is one of several servers, and it would share
 * its runtime entries with the application's server without `include` (which `McpModule.forRootAsync` cannot tell
 * `McpRedis.serverOptions` on its own). A backend that says nothing of servers is taken as given. Throws naming the fix.
 * @internal
 */
export function checkServerScope(
  options: McpModuleOptions,
  name: string,
  include: readonly unknown[] | undefined,
): void {
  const backends: Array<[string, ServerScoped | undefined]> = [
    ['registryState', options.registryState],
    ['eventBus', options.eventBus],
    ['tasks.store', options.tasks?.store],
    ['tasks.runner', options.tasks?.runner],
    ['events.store', options.events?.store],
    ['events.webhooks.store', options.events?.webhooks?.store],
    ['events.webhooks.queue', options.events?.webhooks?.queue],
  ];
  for (const [option, backend] of backends) {
    const owner = typeof backend === 'object' && backend !== null ? backend.server : undefined;
    if (owner !== undefined && owner !== name) {
      throw new Error(
        `McpModule "${name}": its ${option} is the one of the server "${owner}", whose state it would share: give ` +
          `it its own, e.g. redis.serverOptions(options, { server: '${name}' })`,
      );
    }
  }
  const state = options.registryState as ServerScoped | undefined;
  if (state && state.server === undefined && include !== undefined && typeof state.forServer === 'function') {
    throw new Error(
      `McpModule "${name}": the server has "include" but its registryState is the unscoped one, which a server ` +
        'without "include" uses too: a tool registered at run time on either would be listed by both. Name the ' +
        `server: redis.serverOptions(options, { server: '${name}' }) (in forRootAsync's useFactory, where "include" ` +
        'is not among the options serverOptions sees)',
    );
  }
}
