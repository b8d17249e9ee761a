import { MrtrContext } from './mrtr.context.js';

/** Context of a `resources/read` handler. Inject it with `@McpCtx()` or by typing a parameter with this class. */
export class McpResourceContext extends MrtrContext {
  /** The concrete URI being read. */
  get uri(): string {
    return String(this.scope.params.uri);
  }
}
