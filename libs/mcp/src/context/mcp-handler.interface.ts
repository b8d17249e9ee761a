import type { MrtrContext } from './mrtr.context.js';

/** A callable MCP handler: a decorated provider method wrapped in Nest's pipeline, or a function registered at runtime. */
export interface McpHandler {
  /** Runs the handler with the (validated) input and the call's context. */
  invoke(input: unknown, context: MrtrContext): Promise<unknown>;
  /**
   * Runs only the guards (and pipes) of the handler's pipeline, with the call's HTTP request: the authorization of a
   * call whose handler runs later, elsewhere (a task). Rejects as the pipeline would (`ForbiddenException`, …).
   * Absent: nothing to check (functions registered at run time). In the rounds of a task whose guards ran when it
   * was created (`scope.task.authorized`), `invoke` runs the pipeline without them.
   */
  authorize?(input: unknown, context: MrtrContext): Promise<void>;
}
