import type { McpRegistryRecord } from '../protocol/registry-state.interface.js';
import type { McpListKind, McpRegistry } from './mcp.registry.js';
import type { ReplicatedLists } from './registry-replication.js';

const LIST_KINDS: ReadonlySet<string> = new Set<McpListKind>(['tools', 'prompts', 'resources', 'resourceTemplates']);

/**
 * `McpRegistry`'s lists as the shared state sees them (`RegistryReplication`): a `registered` record is a runtime
 * entry built from its options and handler name, a `disabled` one a declared entry kept aside, no record the entry as
 * discovery found it.
 * @internal
 */
export function registryLists(registry: McpRegistry): ReplicatedLists<McpListKind, Set<McpListKind>> {
  return {
    owns: (kind): kind is McpListKind => LIST_KINDS.has(kind),
    quietly: (change) => registry.quietly(change),
    announce: (kinds, replayed) => registry.announce(kinds, replayed),
    transition(kind, key, have, want, haveApplied) {
      undo(registry, kind, key, have, haveApplied);
      if (want && 'disabled' in want) {
        const entry = registry.take(kind, key);
        if (entry) registry.keepDisabled(kind, key, entry);
      } else if (want) {
        const { type, options, handler, scopes, uri } = want.registered;
        const built = registry.runtimeEntry(type, options, handler, scopes, uri);
        if (built.kind !== kind || built.key !== key)
          throw new Error(`the record describes ${built.kind}:${built.key}`);
        registry.put(kind, built.entry);
      }
    },
  };
}

/** Undoes what `have` did to the entry: a runtime entry goes, a switched-off declared one comes back. */
function undo(
  registry: McpRegistry,
  kind: McpListKind,
  key: string,
  have: McpRegistryRecord | undefined,
  haveApplied: boolean,
): void {
  if (have && 'registered' in have && haveApplied) registry.take(kind, key);
  if (have && 'disabled' in have) {
    const entry = registry.takeDisabled(kind, key);
    if (entry) registry.put(kind, entry);
  }
}
