import { MrtrContext } from './mrtr.context.js';

/** Context of a `prompts/get` handler. Inject it with `@McpCtx()` or by typing a parameter with this class. */
export class McpPromptContext extends MrtrContext {}
