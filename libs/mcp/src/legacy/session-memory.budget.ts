/**
 * The bytes 2025-11-25 sessions may hold together (`maxSessionBytes`): each session reserves what it keeps (its base
 * cost, its `clientInfo`, its subscribed URIs) before keeping it, and gives it back when it lets go or ends. The
 * amounts are estimates of retained memory, counted the same way everywhere, not measurements.
 */
export class SessionMemoryBudget {
  private reserved = 0;

  constructor(readonly limit: number) {}

  /** Bytes reserved right now. */
  get held(): number {
    return this.reserved;
  }

  /** Reserves `bytes` if they fit under the limit; false (and nothing reserved) otherwise. */
  tryReserve(bytes: number): boolean {
    if (this.reserved + bytes > this.limit) return false;
    this.reserved += bytes;
    return true;
  }

  /** Gives back bytes reserved earlier. */
  release(bytes: number): void {
    this.reserved = Math.max(0, this.reserved - bytes);
  }
}
