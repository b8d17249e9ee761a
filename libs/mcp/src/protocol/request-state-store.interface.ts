/**
 * Remembers which sealed `requestState`s were already used, so that each is accepted once (module option
 * `requestState.singleUse`). Without it a state may be sent again, by the same caller, until it expires.
 *
 * The built-in `InMemoryRequestStateStore` protects one process; with several replicas give a shared store. A store
 * may answer synchronously or with a Promise, so that a network store fits, e.g. Redis:
 *
 * @example
 * ```ts
 * const store: McpRequestStateStore = {
 *   // SET … NX answers OK only for the first caller; PXAT lets Redis forget the id once the state expired anyway.
 *   consume: async (stateId, expiresAt) => (await redis.set(`mcp:state:${stateId}`, '1', 'PXAT', expiresAt, 'NX')) === 'OK',
 * };
 * McpModule.forRoot({ name: 'ops', version: '1.0.0', requestState: { keys, singleUse: store } });
 * ```
 */
export interface McpRequestStateStore {
  /**
   * `true` when the store serves several replicas (Redis…). `McpModule` then refuses to start without
   * `requestState.keys`: a state sealed with one replica's random key opens on no other.
   */
  readonly sharedAcrossReplicas?: boolean;
  /**
   * Marks the state `stateId` used; resolves `true` if it was not used before (the round goes on), `false` if it was
   * (the client gets `-32602` "already used"). Must be atomic: of two concurrent calls with the same id, only one may
   * get `true`. `expiresAt` (epoch milliseconds) is when the state stops being accepted anyway: the id need not be
   * kept after it. A store that cannot take the id (full, unreachable) should throw an `McpError` saying so (or any
   * error, which the client sees as `-32603`): never answer `true` without recording the id. `caller` (the principal,
   * or for an anonymous caller its remote address group) lets a store bound what one caller may hold.
   */
  consume(stateId: string, expiresAt: number, caller?: string): Promise<boolean> | boolean;
}
