import { createHash } from 'node:crypto';

/**
 * The cache key of a token: its SHA-256, so that the cache never holds a usable token (a heap dump or a debugger shows
 * hashes, not credentials).
 */
export function tokenCacheKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * A bounded cache of verified tokens, keyed by `tokenCacheKey`: each entry lives until its own deadline, and when
 * `maxEntries` is reached the least recently used one goes (a `Map` keeps insertion order; a hit moves the entry to
 * the end).
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value cached for `key`, unless absent or past its deadline (then it is dropped). */
  get(key: string, now = Date.now()): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Caches `value` until `expiresAt` (epoch milliseconds); a deadline already past caches nothing. */
  set(key: string, value: T, expiresAt: number, now = Date.now()): void {
    this.entries.delete(key);
    if (expiresAt <= now || this.maxEntries <= 0) return;
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt });
  }
}
