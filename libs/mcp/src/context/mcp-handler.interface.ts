import type { MrtrContext } from './mrtr.context.js';

/** A callable MCP handler: a decorated provider method wrapped in Nest's pipeline, or a function registered at runtime. */
export interface McpHandler {
  /** Runs the handler with the (validated) input and the call's context. */
  invoke(input: unknown, context: MrtrContext): Promise<unknown>;
}
