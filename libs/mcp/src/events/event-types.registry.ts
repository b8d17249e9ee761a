import { Injectable } from '@nestjs/common';
import { Subject } from 'rxjs';
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
}

/** A matcher that delivers what was emitted, unchanged. */
const DELIVER_AS_EMITTED: McpEventMatcher = () => true;

/**
 * The event types this server offers (the events extension's catalog): filled by the explorer from `@McpEvent`
 * methods at bootstrap, and open to additions and removals at run time. Listed in registration order (stable pages).
 * Changes after bootstrap are published as `notifications/events/list_changed` to listen streams that asked for them;
 * removing a type terminates its push streams and webhook subscriptions (SEP-3415, "Event type removal").
 */
@Injectable()
export class McpEventTypes {
  private readonly types = new Map<string, McpEventTypeEntry>();
  private listed: readonly McpEventTypeEntry[] = [];
  private readonly changes = new Subject<McpEventTypeChange>();
  private discovered = false;
  private revisions = 0;

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
   * Adds an event type at run time (or replaces the one of the same name: keep its schemas compatible, a breaking
   * change needs a new name). Without `match`, every subscription gets what was emitted, unchanged.
   *
   * @example
   * ```ts
   * eventTypes.register({ name: 'build.finished', payload: BuildPayload }, (build, filter) => build.branch === filter.branch);
   * ```
   */
  register(
    options: McpEventOptions & { name: string },
    match: McpEventMatcher = DELIVER_AS_EMITTED,
    access: McpEventTypeAccess = {},
  ): void {
    const entry = createEventType(
      `registered at run time ("${options?.name}")`,
      options,
      match,
      undefined,
      access.scopes,
    );
    const replacing = this.types.has(entry.name);
    this.types.set(entry.name, entry);
    this.changed(
      replacing ? this.listed.map((type) => (type.name === entry.name ? entry : type)) : [...this.listed, entry],
      { name: entry.name },
    );
  }

  /** Removes an event type; its push streams and webhook subscriptions are terminated. Returns whether it existed. */
  remove(name: string): boolean {
    const removed = this.types.get(name);
    if (!removed) return false;
    this.types.delete(name);
    this.changed(
      this.listed.filter((type) => type.name !== name),
      { name, removed },
    );
    return true;
  }

  /** @internal The explorer's bootstrap registrations: a name declared twice fails bootstrap. */
  add(where: string, entry: McpEventTypeEntry): void {
    if (this.types.has(entry.name))
      throw new McpEventDefinitionError(where, `the event type ${entry.name} is declared twice`);
    this.types.set(entry.name, entry);
    this.listed = [...this.listed, entry];
    this.revisions++;
  }

  /** @internal Called by the explorer once the decorated types are registered. */
  completeDiscovery(): void {
    this.discovered = true;
  }

  private changed(listed: readonly McpEventTypeEntry[], change: McpEventTypeChange): void {
    this.listed = listed;
    this.revisions++;
    if (this.discovered) this.changes.next(change);
  }
}
