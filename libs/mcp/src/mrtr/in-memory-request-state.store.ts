import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestStateStore } from '../protocol/request-state-store.interface.js';

/** Options of `InMemoryRequestStateStore`. */
export interface InMemoryRequestStateStoreOptions {
  /** Most used-state ids kept at once (about 100 bytes each). Default 100,000. */
  maxEntries?: number;
  /** @internal The clock, for tests. */
  now?: () => number;
}

/**
 * The single-use `requestState` store of one process (`requestState.singleUse: true`). Each id is kept until its
 * state expires; memory is bounded by `maxEntries`. When that many unexpired states are in use, the next retry is
 * refused (HTTP 503, `-32603`, with `Retry-After`) rather than forgetting an id early, which would let that state be
 * replayed: failing closed. Ids are forgotten oldest first, at most one `requestState.ttlMs` after they expired.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ name: 'ops', version: '1.0.0', requestState: { singleUse: new InMemoryRequestStateStore({ maxEntries: 500_000 }) } });
 * ```
 */
export class InMemoryRequestStateStore implements McpRequestStateStore {
  /** Used ids → when their state expires, in the order they were used. */
  private readonly used = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: InMemoryRequestStateStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0) {
      throw new Error('InMemoryRequestStateStore: maxEntries must be a positive whole number');
    }
    this.maxEntries = maxEntries;
    this.now = options.now ?? Date.now;
  }

  /** How many ids are kept now. */
  get size(): number {
    return this.used.size;
  }

  consume(stateId: string, expiresAt: number): boolean {
    const now = this.now();
    this.forgetExpired(now);
    if (this.used.has(stateId)) return false;
    if (this.used.size >= this.maxEntries) {
      // The oldest id frees its slot when its state expires: that is when a retry can succeed.
      const oldest = this.used.values().next().value ?? now;
      const retryAfterSeconds = Math.max(1, Math.ceil((oldest - now) / 1000));
      throw new McpError(
        McpErrorCode.InternalError,
        `Too many multi-round calls in progress: the single-use requestState store holds ${this.maxEntries} states; retry later`,
        { retryAfterSeconds },
        503,
      );
    }
    this.used.set(stateId, expiresAt);
    return true;
  }

  /** Drops expired ids from the front (the oldest used); stops at the first live one, so each call stays cheap. */
  private forgetExpired(now: number): void {
    for (const [id, expiresAt] of this.used) {
      if (expiresAt > now) return;
      this.used.delete(id);
    }
  }
}
