import { MrtrContext } from './mrtr.context.js';

/** Context of a `tools/call` handler. Inject it with `@McpCtx()` or by typing a parameter with this class. */
export class McpToolContext extends MrtrContext {}
