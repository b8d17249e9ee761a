import type { McpHandler } from '../context/mcp-handler.interface.js';
import type { McpCompletionContext, McpCompletionReturn } from '../decorators/completion-provider.interface.js';
import type { McpBeforeTaskHook, McpToolTaskSupport } from '../decorators/mcp-tool.decorator.js';
import type {
  McpPromptDefinition,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpToolDefinition,
} from '../protocol/mcp-wire.interface.js';
import type { UriTemplate } from '../protocol/uri-template.js';
import type { CompiledSchema } from '../schema/index.js';
import type { ParamHeaderBinding } from './param-headers.js';

/** A completion provider bound to its host. */
export type BoundCompletion = (value: string, context: McpCompletionContext) => Promise<McpCompletionReturn>;

/** A registered tool. */
export interface ToolEntry {
  readonly definition: McpToolDefinition;
  readonly input?: CompiledSchema;
  readonly output?: CompiledSchema;
  /** Arguments mirrored into `Mcp-Param-*` headers. */
  readonly paramHeaders: readonly ParamHeaderBinding[];
  readonly handler: McpHandler;
  /** Present for a tool that runs as a task (`@McpTool({ task })`). */
  readonly task?: ToolTaskPolicy;
}

/** How a tool runs as a task. */
export interface ToolTaskPolicy {
  readonly support: McpToolTaskSupport;
  /** `beforeTask`, bound to its provider. */
  readonly beforeTask?: McpBeforeTaskHook;
}

/** A registered prompt. */
export interface PromptEntry {
  readonly definition: McpPromptDefinition;
  readonly requiredArguments: readonly string[];
  readonly completions: ReadonlyMap<string, BoundCompletion>;
  readonly handler: McpHandler;
}

/** A registered static resource. */
export interface ResourceEntry {
  readonly definition: McpResourceDefinition;
  readonly handler: McpHandler;
}

/** A registered resource template. */
export interface ResourceTemplateEntry {
  readonly definition: McpResourceTemplateDefinition;
  readonly template: UriTemplate;
  readonly completions: ReadonlyMap<string, BoundCompletion>;
  readonly handler: McpHandler;
}
