import { Logger } from '@nestjs/common';
import type { McpRegistryRecord, McpRegistrySnapshot, McpRegistryState } from '../protocol/registry-state.interface.js';

/** What this replica applied of one key of the shared state. */
interface Applied {
  readonly record: McpRegistryRecord;
  readonly json: string;
}

/**
 * The lists one `RegistryReplication` keeps up to the shared state: `McpRegistry`'s (tools, prompts, resources,
 * templates: `registryLists`) or the events extension's catalog (`McpEventTypes`). Several may follow one state: each
 * applies only the keys of its own kinds (`<kind>:<key>`).
 * @internal
 */
export interface ReplicatedLists<K extends string, C> {
  /** Whether `kind` (the part of a key before its first `:`) is one of these lists'. */
  owns(kind: string): kind is K;
  /** Runs `change` with its announcements held back; returns what it changed, for `announce`. */
  quietly(change: () => void): C;
  /** Announces held changes; `replayed`: they came from the shared state (another replica told its listeners). */
  announce(changes: C, replayed: boolean): void;
  /**
   * Takes the entry `key` of list `kind` from what `have` made of it (`haveApplied`: `have` was applied, not left
   * unresolved) to what `want` says. Throws when `want` cannot be served here (a handler name not provided, a clash):
   * the record is then retried on each catch-up.
   */
  transition(
    kind: K,
    key: string,
    have: McpRegistryRecord | undefined,
    want: McpRegistryRecord | undefined,
    haveApplied: boolean,
  ): void;
}

/**
 * The shared side of an `McpRegistry` or of the events catalog (a `registryState` is configured): runtime changes are
 * committed to the shared state before they are announced, and the lists are brought up to the shared state — at
 * startup, when another replica commits, and before every list (`catchUp`) — so that every replica lists the same
 * entries (ADR 0027).
 *
 * A local change is applied here at once (held, not announced), committed, then announced; if the commit fails it is
 * undone. Changes from the shared state are applied with their announcement marked as replayed: the replica that
 * made the change told every listener already, through the event bus.
 * @internal
 */
export class RegistryReplication<K extends string, C> {
  private readonly logger: Logger;
  /** The record of each key as this replica applied it (optimistically for its own changes on their way). */
  private readonly applied = new Map<string, Applied>();
  /** Keys with a change of this replica on its way to the shared state: a catch-up leaves them alone meanwhile. */
  private readonly pending = new Map<string, number>();
  /** Records whose entry could not be built here (a handler name not provided, a clash): retried on each catch-up. */
  private readonly unresolved = new Map<string, string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The token of the shared state this replica last applied. */
  private token?: string;
  private running?: Promise<void>;
  private queued?: Promise<void>;
  private failing = false;
  private stopListening?: () => void;

  constructor(
    private readonly lists: ReplicatedLists<K, C>,
    private readonly state: McpRegistryState,
    /** The logger's context: whose lists these are. */
    context = 'McpRegistry',
  ) {
    this.logger = new Logger(context);
  }

  /** Applies the shared state (before the server takes requests) and follows it from then on. */
  async start(): Promise<void> {
    this.stopListening = this.state.onChange(() => void this.catchUp());
    await this.catchUp();
    if (this.failing)
      this.logger.warn('Starting without the shared registry state: lists catch up once it is reachable');
  }

  stop(): void {
    this.stopListening?.();
  }

  /** Whether `key` of list `kind` was registered at run time (here or on another replica), not declared. */
  isRuntime(kind: K, key: string): boolean {
    const record = this.applied.get(`${kind}:${key}`)?.record;
    return record !== undefined && 'registered' in record;
  }

  /**
   * Resolves once this replica applied every change committed before the call. Concurrent callers share a read: one
   * running, at most one more queued (which starts after all of them arrived). While the shared state is unreachable
   * it does not wait: lists are served as last known, and a read is retried in the background.
   */
  catchUp(): Promise<void> {
    if (!this.running) this.running = this.sync();
    else
      this.queued ??= this.running.then(() => {
        this.queued = undefined;
        return (this.running = this.sync());
      });
    const waitFor = this.queued ?? this.running;
    return this.failing ? Promise.resolve() : waitFor;
  }

  /** Resolves once every change of this replica so far is shared and announced; rejects if one was undone. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** A handler name was provided: records that waited for it are applied at the next catch-up. */
  handlerProvided(): void {
    if (this.unresolved.size > 0) this.token = undefined;
  }

  /**
   * A change of this replica: `apply` now (held), commit `record` (`undefined`: no record) for `kind:key`, then
   * announce; if the commit fails, `undo` and reject. `apply` throwing leaves everything as it was.
   */
  change(
    kind: K,
    key: string,
    record: McpRegistryRecord | undefined,
    apply: () => void,
    undo: () => void,
  ): Promise<void> {
    const fullKey = `${kind}:${key}`;
    const kinds = this.lists.quietly(apply);
    const previous = this.applied.get(fullKey);
    this.setApplied(fullKey, record);
    this.pending.set(fullKey, (this.pending.get(fullKey) ?? 0) + 1);
    const done = this.state.commit(fullKey, record).then(
      () => this.lists.announce(kinds, false),
      (error: unknown) => {
        try {
          this.lists.quietly(undo);
        } catch (undoError) {
          this.logger.error(
            `Could not undo the change of ${fullKey}: ${(undoError as Error)?.message ?? String(undoError)}`,
          );
        }
        this.setApplied(fullKey, previous?.record);
        throw new Error(
          `nest-mcp: the runtime change of ${fullKey} could not be shared with the other replicas ` +
            `(${(error as Error)?.message ?? String(error)}); it was undone on this replica`,
        );
      },
    );
    const tracked = done.finally(() => {
      const left = (this.pending.get(fullKey) ?? 1) - 1;
      if (left > 0) this.pending.set(fullKey, left);
      else this.pending.delete(fullKey);
      this.inFlight.delete(tracked);
    });
    tracked.catch(() => undefined);
    this.inFlight.add(tracked);
    return tracked;
  }

  private async sync(): Promise<void> {
    try {
      const token = await this.state.token();
      if (token !== this.token) this.reconcile(await this.state.read());
      if (this.failing) {
        this.failing = false;
        this.logger.log('The shared registry state is reachable again');
      }
    } catch (error) {
      if (!this.failing) {
        this.failing = true;
        this.logger.warn(
          `Cannot read the shared registry state (${(error as Error)?.message ?? String(error)}): ` +
            'this replica serves its lists as it last knew them until it can',
        );
      }
    } finally {
      if (!this.queued) this.running = undefined;
    }
  }

  /** Brings the lists to `snapshot`, key by key; what changed is announced once, as replayed. */
  private reconcile(snapshot: McpRegistrySnapshot): void {
    const keys = new Set([...Object.keys(snapshot.records), ...this.applied.keys()]);
    const changes = this.lists.quietly(() => {
      for (const fullKey of keys) {
        if (this.pending.has(fullKey)) continue;
        const want = Object.hasOwn(snapshot.records, fullKey) ? snapshot.records[fullKey] : undefined;
        const have = this.applied.get(fullKey);
        if (have?.json === (want && JSON.stringify(want)) && !this.unresolved.has(fullKey)) continue;
        const separator = fullKey.indexOf(':');
        const kind = fullKey.slice(0, separator);
        // Another list's key (the events catalog's, McpRegistry's), or not a key at all.
        if (separator < 0 || !this.lists.owns(kind)) continue;
        this.transition(fullKey, kind, fullKey.slice(separator + 1), have?.record, want);
      }
    });
    this.token = snapshot.token;
    this.lists.announce(changes, true);
  }

  /** Takes the entry from `have` to `want`; a failure is logged and retried later. */
  private transition(
    fullKey: string,
    kind: K,
    key: string,
    have: McpRegistryRecord | undefined,
    want: McpRegistryRecord | undefined,
  ): void {
    const unresolved = this.unresolved.get(fullKey);
    this.unresolved.delete(fullKey);
    this.setApplied(fullKey, want);
    try {
      this.lists.transition(kind, key, have, want, unresolved === undefined);
    } catch (error) {
      const problem = (error as Error)?.message ?? String(error);
      if (unresolved !== problem) {
        this.logger.error(`The shared entry ${fullKey} cannot be served by this replica: ${problem}`);
      }
      this.unresolved.set(fullKey, problem);
    }
  }

  private setApplied(fullKey: string, record: McpRegistryRecord | undefined): void {
    if (record === undefined) this.applied.delete(fullKey);
    else this.applied.set(fullKey, { record, json: JSON.stringify(record) });
  }
}
