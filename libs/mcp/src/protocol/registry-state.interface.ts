import type { JsonObject } from './json-rpc.interface.js';

/**
 * What a runtime registration added: the `McpRegistry.register*` method that made it, or `eventType` for
 * `McpEventTypes.register` (the events extension's catalog).
 */
export type McpRuntimeEntryType = 'tool' | 'prompt' | 'resource' | 'appView' | 'resourceTemplate' | 'eventType';

/**
 * The shared state of one list entry, as plain JSON: registered at run time (its options and the name of its handler,
 * which every replica provides with `McpRegistry.provideHandler`), or a declared entry switched off. An entry with no
 * record is as discovery found it.
 */
export type McpRegistryRecord =
  | {
      readonly registered: {
        readonly type: McpRuntimeEntryType;
        readonly options: JsonObject;
        /**
         * The name of its handler (`McpRegistry.provideHandler`), or for an event type of its matcher
         * (`McpEventTypes.provideMatcher`; `''`: none, every subscription gets what was emitted).
         */
        readonly handler: string;
        readonly scopes?: readonly string[];
        /** The URI of an app view (its options carry no `uri`). */
        readonly uri?: string;
      };
    }
  | { readonly disabled: true };

/** Every record of the shared state, and the token of the state they were read at. */
export interface McpRegistrySnapshot {
  /** Changes with every commit (and when the store starts afresh, e.g. a Redis without persistence restarted). */
  readonly token: string;
  /** Record by entry key: `<list kind>:<name or URI>`, e.g. `tools:estimate_costs`, `events:build.finished`. */
  readonly records: Readonly<Record<string, McpRegistryRecord>>;
}

/**
 * Where the runtime changes of a server's lists are kept for every replica (`nest-mcp-redis`: a hash in Redis and a
 * channel that announces commits). With one, `McpRegistry` commits each runtime change there before it announces it,
 * and every replica brings its lists up to the shared state before it serves one — so after a `list_changed`, every
 * replica lists the same entries. Without one, runtime changes are this process's own.
 *
 * Provide it through the `registryState` option (`McpRedis.serverOptions` does).
 */
export interface McpRegistryState {
  /** Sets (`record`) or clears (`undefined`) the record of `key` for every replica; resolves once it is stored. */
  commit(key: string, record: McpRegistryRecord | undefined): Promise<void>;
  /** The token of the current state: cheap, read before each list to see whether this replica is behind. */
  token(): Promise<string>;
  /** Every record, with the token they were read at (one consistent read). */
  read(): Promise<McpRegistrySnapshot>;
  /** Calls `listener` when another replica committed, or when commits may have been missed (a reconnection). */
  onChange(listener: () => void): () => void;
  /**
   * For a store that keeps one state per named server (`nest-mcp-redis`): the server this state is of, `undefined`
   * for the store's unscoped state. `McpModule` refuses to start a server whose state is another server's, or a
   * server with `include` given the unscoped state of such a store (docs/servers.md). Omit both members for a store
   * with one state.
   */
  readonly server?: string;
  /** For a store that keeps one state per named server: the state of the server called `name`. */
  forServer?(name: string): McpRegistryState;
}

/** Injection token of the shared registry state (the `registryState` option). */
export const MCP_REGISTRY_STATE = Symbol('nest-mcp:registry-state');
