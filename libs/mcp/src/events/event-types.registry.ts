import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { Subject } from 'rxjs';
import { isPlainJson } from '../discovery/plain-json.util.js';
import { RegistryReplication, type ReplicatedLists } from '../discovery/registry-replication.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import {
  MCP_REGISTRY_STATE,
  type McpRegistryRecord,
  type McpRegistryState,
} from '../protocol/registry-state.interface.js';
import { McpEventDefinitionError } from './event-definition.error.js';
import { createEventType } from './event-type.factory.js';
import type { McpEventTypeEntry } from './event-type.js';
import type { McpEventMatcher, McpEventOptions } from './mcp-event.decorator.js';

/** Authorization of an event type registered at run time: what `@McpScopes` says for decorated ones. */
export interface McpEventTypeAccess {
  /** Every OAuth scope a caller's token must grant to see and subscribe to the type. Default: none. */
  scopes?: readonly string[];
}

/** A change of the catalog after bootstrap: a type added, replaced or removed. */
export interface McpEventTypeChange {
  readonly name: string;
  /** The type that is gone (`remove`): its live subscriptions are terminated. */
  readonly removed?: McpEventTypeEntry;
  /**
   * The change came from the shared `registryState` (another replica made it): that replica told the listeners and
   * ended the webhook subscriptions of a removed type; this one still ends its own push streams.
   */
  readonly replayed?: boolean;
}

/** The kind of the catalog's keys in the shared registry state: `events:<name>`. */
const EVENTS_KIND = 'events';

/** A matcher that delivers what was emitted, unchanged. */
const DELIVER_AS_EMITTED: McpEventMatcher = () => true;

/**
 * The event types this server offers (the events extension's catalog): filled by the explorer from `@McpEvent`
 * methods at bootstrap, and open to additions and removals at run time. Listed in registration order (stable pages).
 * Changes after bootstrap are published as `notifications/events/list_changed` to listen streams that asked for them;
 * removing a type terminates its push streams and webhook subscriptions (SEP-3415, "Event type removal").
 *
 * With a shared `registryState` (`nest-mcp-redis`), runtime changes are the cluster's, as `McpRegistry`'s are (ADR
 * 0027): each is committed to the shared state before it is announced, every replica applies it, and `events/list`
 * catches up first. Matchers then travel by name (`provideMatcher`), options must be plain JSON, and the declared
 * types come first, then the runtime ones by name (every replica lists them in the same order).
 */
@Injectable()
export class McpEventTypes implements OnModuleDestroy {
  private readonly types = new Map<string, McpEventTypeEntry>();
  /** The types `@McpEvent` declared, in declaration order: what a name without a shared record is. */
  private readonly declared = new Map<string, McpEventTypeEntry>();
  /** Matchers runtime registrations name (`provideMatcher`). */
  private readonly matchers = new Map<string, McpEventMatcher>();
  private listed: readonly McpEventTypeEntry[] = [];
  private readonly changes = new Subject<McpEventTypeChange>();
  private discovered = false;
  private revisions = 0;
  /** While above 0, changes are held, not announced (the shared state's `quietly`). */
  private quiet = 0;
  private held: McpEventTypeChange[] = [];
  private readonly replication?: RegistryReplication<typeof EVENTS_KIND, McpEventTypeChange[]>;

  constructor(@Optional() @Inject(MCP_REGISTRY_STATE) state?: McpRegistryState) {
    if (state) this.replication = new RegistryReplication(this.sharedLists(), state, 'McpEvents');
  }

  /** @internal Emits each change once discovery finished. */
  readonly changes$ = this.changes.asObservable();

  /** @internal Grows with every change (the capabilities and list pages are computed again). */
  get revision(): number {
    return this.revisions;
  }

  /** Whether the extension is advertised: at least one event type is registered. */
  get advertised(): boolean {
    return this.types.size > 0;
  }

  /** The type of this name, if it is registered. */
  get(name: string): McpEventTypeEntry | undefined {
    return this.types.get(name);
  }

  /** Every type, in registration order (a new array after every change). */
  list(): readonly McpEventTypeEntry[] {
    return this.listed;
  }

  /**
   * @internal Before the catalog is served: with a shared state, resolves once this replica applied every change
   * committed so far; `undefined` (nothing to wait for) without one.
   */
  catchUp(): Promise<void> | undefined {
    return this.replication?.catchUp();
  }

  /**
   * Resolves once every runtime change of the catalog this replica made so far is shared with the other replicas and
   * announced (at once without a shared `registryState`); rejects when one could not be shared (it was undone here).
   */
  settled(): Promise<void> {
    return this.replication?.settled() ?? Promise.resolve();
  }

  /**
   * Names a matcher for runtime registrations, so that a registration on one replica can be applied on every other
   * (`register(options, 'name')`): provide the same names on every replica, at startup (`onModuleInit`).
   *
   * @example
   * ```ts
   * eventTypes.provideMatcher('same-branch', (build, filter) => build.branch === filter.branch);
   * await eventTypes.register({ name: 'build.finished', payload: BUILD_PAYLOAD_SCHEMA }, 'same-branch');
   * ```
   */
  provideMatcher<D = any, A = any>(name: string, match: McpEventMatcher<D, A>): void {
    if (typeof name !== 'string' || name.length === 0)
      throw new McpEventDefinitionError('provideMatcher', 'the name must be a non-empty string');
    if (typeof match !== 'function')
      throw new McpEventDefinitionError(`provideMatcher("${name}")`, 'the matcher must be a function');
    if (this.matchers.has(name))
      throw new McpEventDefinitionError(`provideMatcher("${name}")`, 'a matcher of that name is provided already');
    this.matchers.set(name, match);
    // A registration the shared state holds may have waited for this name.
    this.replication?.handlerProvided();
  }

  /**
   * Adds an event type at run time (or replaces the one of the same name: keep its schemas compatible, a breaking
   * change needs a new name). Without `match`, every subscription gets what was emitted, unchanged; `match` may be
   * the name of a matcher given to `provideMatcher`. With a shared `registryState`, `match` must be such a name (a
   * function cannot reach the other replicas) and the options plain JSON (JSON Schemas, no `authorize` function); the
   * promise resolves once every replica can list the type.
   *
   * @example
   * ```ts
   * eventTypes.register({ name: 'build.finished', payload: BuildPayload }, (build, filter) => build.branch === filter.branch);
   * ```
   */
  register(
    options: McpEventOptions & { name: string },
    match: McpEventMatcher | string = DELIVER_AS_EMITTED,
    access: McpEventTypeAccess = {},
  ): Promise<void> {
    const where = `registered at run time ("${options?.name}")`;
    const shared = this.replication;
    if (shared && typeof match === 'function' && match !== DELIVER_AS_EMITTED) {
      throw new McpEventDefinitionError(
        where,
        'with a shared registryState (several replicas) the matcher must be the name of one every replica provides ' +
          '(eventTypes.provideMatcher(name, fn)): a function cannot reach the other replicas',
      );
    }
    const entry = createEventType(where, options, this.matcherOf(where, match), undefined, access.scopes);
    if (!shared) {
      this.set(entry.name, entry);
      return Promise.resolve();
    }
    if (!isPlainJson(options)) {
      throw new McpEventDefinitionError(
        where,
        'with a shared registryState its options must be plain JSON (JSON Schemas, no classes, functions or Standard Schemas): they travel to every replica',
      );
    }
    const record: McpRegistryRecord = {
      registered: {
        type: 'eventType',
        options: options as unknown as JsonObject,
        // '' for "deliver as emitted": provided matcher names are never empty.
        handler: typeof match === 'string' ? match : '',
        ...(access.scopes ? { scopes: [...access.scopes] } : {}),
      },
    };
    const previous = this.types.get(entry.name);
    return shared.change(
      EVENTS_KIND,
      entry.name,
      record,
      () => this.set(entry.name, entry),
      () => this.set(entry.name, previous),
    );
  }

  /**
   * Removes an event type; its push streams and webhook subscriptions are terminated. Returns whether it existed. With
   * a shared `registryState` it is removed on every replica (`await settled()` to wait until it is); a declared type
   * is switched off there, until `enable`.
   */
  remove(name: string): boolean {
    const removed = this.types.get(name);
    if (!removed) return false;
    if (!this.replication) {
      this.set(name, undefined);
      return true;
    }
    // A declared type is recorded as switched off, so that a replica started later leaves it out too.
    const record: McpRegistryRecord | undefined = this.declared.has(name) ? { disabled: true } : undefined;
    void this.replication
      .change(
        EVENTS_KIND,
        name,
        record,
        () => this.set(name, undefined),
        () => this.set(name, removed),
      )
      .catch(() => undefined);
    return true;
  }

  /**
   * Brings back a declared (`@McpEvent`) type that `remove` took away (on every replica with a shared
   * `registryState`); returns whether it was away.
   */
  enable(name: string): boolean {
    const declared = this.declared.get(name);
    if (!declared || this.types.has(name)) return false;
    if (!this.replication) {
      this.set(name, declared);
      return true;
    }
    void this.replication
      .change(
        EVENTS_KIND,
        name,
        undefined,
        () => this.set(name, declared),
        () => this.set(name, undefined),
      )
      .catch(() => undefined);
    return true;
  }

  /** @internal The explorer's bootstrap registrations: a name declared twice fails bootstrap. */
  add(where: string, entry: McpEventTypeEntry): void {
    if (this.types.has(entry.name))
      throw new McpEventDefinitionError(where, `the event type ${entry.name} is declared twice`);
    this.types.set(entry.name, entry);
    this.declared.set(entry.name, entry);
    this.listed = [...this.listed, entry];
    this.revisions++;
  }

  /**
   * @internal Called by the explorer once the decorated types are registered; with a shared state, resolves once the
   * catalog applied it (the explorer's bootstrap hook awaits it, so no request is served before).
   */
  completeDiscovery(): Promise<void> | undefined {
    this.discovered = true;
    return this.replication?.start();
  }

  onModuleDestroy(): void {
    this.replication?.stop();
  }

  /** The matcher a registration names: a function, or the name of a provided one. */
  private matcherOf(where: string, match: McpEventMatcher | string): McpEventMatcher {
    if (typeof match !== 'string') return match;
    const provided = this.matchers.get(match);
    if (!provided)
      throw new McpEventDefinitionError(
        where,
        `no matcher is provided under the name "${match}" (eventTypes.provideMatcher, on every replica)`,
      );
    return provided;
  }

  /** Makes `entry` the type called `name` (`undefined`: none), announced unless held. */
  private set(name: string, entry: McpEventTypeEntry | undefined): void {
    const current = this.types.get(name);
    if (current === entry) return;
    if (entry) this.types.set(name, entry);
    else this.types.delete(name);
    let listed: readonly McpEventTypeEntry[];
    if (this.replication) listed = this.sharedOrder();
    else if (!entry) listed = this.listed.filter((type) => type.name !== name);
    else if (current) listed = this.listed.map((type) => (type.name === name ? entry : type));
    else listed = [...this.listed, entry];
    this.changed(listed, entry ? { name } : { name, removed: current });
  }

  /** With a shared state: the declared types in declaration order, then the runtime ones by name, on every replica. */
  private sharedOrder(): readonly McpEventTypeEntry[] {
    const first = [...this.declared.keys()].filter((name) => this.types.has(name));
    const rest = [...this.types.keys()].filter((name) => !this.declared.has(name)).sort(compareCodePoints);
    return [...first, ...rest].map((name) => this.types.get(name)!);
  }

  private changed(listed: readonly McpEventTypeEntry[], change: McpEventTypeChange): void {
    this.listed = listed;
    this.revisions++;
    if (!this.discovered) return;
    if (this.quiet > 0) this.held.push(change);
    else this.changes.next(change);
  }

  /** The catalog as `RegistryReplication` sees it: one key per type, `events:<name>`. */
  private sharedLists(): ReplicatedLists<typeof EVENTS_KIND, McpEventTypeChange[]> {
    return {
      owns: (kind): kind is typeof EVENTS_KIND => kind === EVENTS_KIND,
      quietly: (change) => {
        const outer = this.held;
        this.held = [];
        this.quiet++;
        try {
          change();
        } finally {
          this.quiet--;
        }
        const captured = this.held;
        this.held = outer;
        return captured;
      },
      announce: (changes, replayed) => {
        for (const change of changes) this.changes.next(replayed ? { ...change, replayed } : change);
      },
      // Whatever the catalog had: a record makes the type what it says, no record what discovery found.
      transition: (_kind, name, _have, want) => {
        if (!want || 'disabled' in want) {
          this.set(name, want ? undefined : this.declared.get(name));
          return;
        }
        const { type, options, handler, scopes } = want.registered;
        if (type !== 'eventType') throw new Error(`the record describes a ${type}, not an event type`);
        const where = `registered at run time ("${name}", shared)`;
        const entry = createEventType(
          where,
          options as unknown as McpEventOptions & { name: string },
          handler === '' ? DELIVER_AS_EMITTED : this.matcherOf(where, handler),
          undefined,
          scopes,
        );
        if (entry.name !== name) throw new Error(`the record describes the event type ${entry.name}`);
        this.set(name, entry);
      },
    };
  }
}

/** Locale-independent ordering, so lists are identical on every machine. */
const compareCodePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
