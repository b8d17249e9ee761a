import { MrtrContext } from './mrtr.context.js';

/** Context of a `resources/read` handler. Inject it with `@McpCtx()` or by typing a parameter with this class. */
export class McpResourceContext extends MrtrContext {
  /** The concrete URI being read. */
  get uri(): string {
    return String(this.scope.params.uri);
  }

  /**
   * @internal Set by `McpCacheInterceptor` when the read was stored in or served from its cache: how long the server's
   * copy still lives and whether callers share it. The read's `ttlMs` and `cacheScope` hints follow it.
   */
  servedCache?: { readonly remainingMs: number; readonly shared: boolean };
}
