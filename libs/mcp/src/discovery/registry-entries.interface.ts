import type { McpToolAppBinding } from '../apps/app-tool.binding.js';
import type { McpHandler } from '../context/mcp-handler.interface.js';
import type { McpCompletionContext, McpCompletionReturn } from '../decorators/completion-provider.interface.js';
import type { McpBeforeTaskHook, McpToolTaskSupport } from '../decorators/mcp-tool.decorator.js';
import type {
  McpPromptDefinition,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpToolDefinition,
} from '../protocol/mcp-wire.interface.js';
import type { McpHandlerSummary } from '../protocol/mcp-caller.interface.js';
import type { UriTemplate } from '../protocol/uri-template.js';
import type { CompiledSchema } from '../schema/index.js';
import type { ParamHeaderBinding } from '../protocol/param-header-binding.interface.js';

/** A completion provider bound to its host. */
export type BoundCompletion = (value: string, context: McpCompletionContext) => Promise<McpCompletionReturn>;

/** What every entry carries for authorization: its summary (kind, name, URI, required scopes) for lists and calls. */
export interface AccessControlled {
  /** One object per entry, made at registration; `summary.scopes` are every scope `@McpScopes` requires. */
  readonly summary: McpHandlerSummary;
}

/** A registered tool. */
export interface ToolEntry extends AccessControlled {
  readonly definition: McpToolDefinition;
  readonly input?: CompiledSchema;
  readonly output?: CompiledSchema;
  /** Arguments mirrored into `Mcp-Param-*` headers. */
  readonly paramHeaders: readonly ParamHeaderBinding[];
  readonly handler: McpHandler;
  /** Present for a tool that runs as a task (`@McpTool({ task })`). */
  readonly task?: ToolTaskPolicy;
  /** Present for a tool with an MCP Apps view or visibility (`@McpTool({ app })`). */
  readonly app?: McpToolAppBinding;
  /** The tool's companion prompt (`@McpTool({ companionPrompt })`), registered and removed with it. */
  readonly companion?: PromptEntry;
}

/** How a tool runs as a task. */
export interface ToolTaskPolicy {
  readonly support: McpToolTaskSupport;
  /** `beforeTask`, bound to its provider. */
  readonly beforeTask?: McpBeforeTaskHook;
}

/** A registered prompt. */
export interface PromptEntry extends AccessControlled {
  readonly definition: McpPromptDefinition;
  readonly requiredArguments: readonly string[];
  readonly completions: ReadonlyMap<string, BoundCompletion>;
  readonly handler: McpHandler;
  /** The tool a companion prompt belongs to; its `summary` is then the tool's (who sees the tool sees the prompt). */
  readonly companionOf?: string;
}

/** A registered static resource. */
export interface ResourceEntry extends AccessControlled {
  readonly definition: McpResourceDefinition;
  readonly handler: McpHandler;
}

/** A registered resource template. */
export interface ResourceTemplateEntry extends AccessControlled {
  readonly definition: McpResourceTemplateDefinition;
  readonly template: UriTemplate;
  readonly completions: ReadonlyMap<string, BoundCompletion>;
  readonly handler: McpHandler;
}
