import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestStateStore } from '../protocol/request-state-store.interface.js';

/** Options of `InMemoryRequestStateStore`. */
export interface InMemoryRequestStateStoreOptions {
  /** Most used-state ids kept at once (about 100 bytes each). Default 100,000. */
  maxEntries?: number;
  /** Most of them one caller may hold, so that one caller cannot fill the store for everyone. Default 10,000. */
  maxEntriesPerCaller?: number;
  /** @internal The clock, for tests. */
  now?: () => number;
}

/**
 * The single-use `requestState` store of one process (`requestState.singleUse: true`). Each id is kept until its
 * state expires; memory is bounded by `maxEntries`. When that many unexpired states are in use, the next retry is
 * refused (HTTP 503, `-32603`, with `Retry-After`) rather than forgetting an id early, which would let that state be
 * replayed: failing closed. One caller may hold at most `maxEntriesPerCaller` of them (HTTP 429 beyond it), so a
 * single client cannot make everyone else's retries fail. Ids are forgotten oldest first, at most one
 * `requestState.ttlMs` after they expired.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ name: 'ops', version: '1.0.0', requestState: { singleUse: new InMemoryRequestStateStore({ maxEntries: 500_000 }) } });
 * ```
 */
export class InMemoryRequestStateStore implements McpRequestStateStore {
  /** Used ids → when their state expires and who used it, in the order they were used. */
  private readonly used = new Map<string, { expiresAt: number; caller?: string }>();
  /** How many live ids each caller holds. */
  private readonly byCaller = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly maxEntriesPerCaller: number;
  private readonly now: () => number;

  constructor(options: InMemoryRequestStateStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0) {
      throw new Error('InMemoryRequestStateStore: maxEntries must be a positive whole number');
    }
    this.maxEntries = maxEntries;
    const perCaller = options.maxEntriesPerCaller ?? Math.min(10_000, maxEntries);
    if (!Number.isSafeInteger(perCaller) || perCaller <= 0) {
      throw new Error('InMemoryRequestStateStore: maxEntriesPerCaller must be a positive whole number');
    }
    this.maxEntriesPerCaller = perCaller;
    this.now = options.now ?? Date.now;
  }

  /** How many ids are kept now. */
  get size(): number {
    return this.used.size;
  }

  consume(stateId: string, expiresAt: number, caller?: string): boolean {
    const now = this.now();
    this.forgetExpired(now);
    if (this.used.has(stateId)) return false;
    // The oldest id frees its slot when its state expires: that is when a retry can succeed.
    const retryAfterSeconds = () =>
      Math.max(1, Math.ceil(((this.used.values().next().value?.expiresAt ?? now) - now) / 1000));
    if (caller !== undefined && (this.byCaller.get(caller) ?? 0) >= this.maxEntriesPerCaller) {
      throw new McpError(
        McpErrorCode.InternalError,
        `Too many multi-round calls in progress for this caller: it holds ${this.maxEntriesPerCaller} single-use requestStates ` +
          '(InMemoryRequestStateStore maxEntriesPerCaller); retry later',
        { retryAfterSeconds: retryAfterSeconds() },
        429,
      );
    }
    if (this.used.size >= this.maxEntries) {
      throw new McpError(
        McpErrorCode.InternalError,
        `Too many multi-round calls in progress: the single-use requestState store holds ${this.maxEntries} states; retry later`,
        { retryAfterSeconds: retryAfterSeconds() },
        503,
      );
    }
    this.used.set(stateId, { expiresAt, caller });
    if (caller !== undefined) this.byCaller.set(caller, (this.byCaller.get(caller) ?? 0) + 1);
    return true;
  }

  /** Drops expired ids from the front (the oldest used); stops at the first live one, so each call stays cheap. */
  private forgetExpired(now: number): void {
    for (const [id, entry] of this.used) {
      if (entry.expiresAt > now) return;
      this.used.delete(id);
      if (entry.caller === undefined) continue;
      const held = (this.byCaller.get(entry.caller) ?? 1) - 1;
      if (held <= 0) this.byCaller.delete(entry.caller);
      else this.byCaller.set(entry.caller, held);
    }
  }
}
