/** Options of `ctx.elicit` and `ctx.elicitAll`. */
export interface McpElicitOptions {
  /**
   * Your own state for the next round, when this call asks (its answer is not there yet): sealed into `requestState`
   * with the library's bookkeeping (encrypted, integrity-protected, bound to the request and caller) and read back
   * with `ctx.requestState` when the client retries. Ignored when the answer is already there, so a value computed
   * afresh in every round never replaces the one the first round attached. Plain JSON, at most 16 KiB: keep references
   * (a reservation id, a cursor), never secrets or the data itself. Checked at run time (`TypeError` for what JSON
   * cannot carry, `RangeError` over the size), so any type of yours that is plain JSON fits.
   */
  state?: unknown;
}
