import { SetMetadata } from '@nestjs/common';
import type { McpIcon, McpMeta, McpToolAnnotations } from '../protocol/mcp-wire.interface.js';
import type { SchemaInput } from '../schema/index.js';
import type { McpCompanionPromptOptions, McpToolAppOptions } from './mcp-app-options.interface.js';
import { MCP_TOOL_METADATA } from './mcp-metadata.constants.js';

/**
 * Whether a tool runs as a task (the `io.modelcontextprotocol/tasks` extension), following the spec's terms:
 * `'optional'`: a task for a request that declared the extension, an ordinary result otherwise; `'required'`: always a
 * task, and `-32021` for a request that cannot take one.
 */
export type McpToolTaskSupport = 'optional' | 'required';

/**
 * Asks for input before a task is created (`beforeTask`): runs with the validated arguments and the call's
 * `McpToolContext` (its `elicit` does ordinary MRTR rounds on the `tools/call`); the answers reach the task's handler.
 * Runs only when the call will create a task, after argument validation.
 */
// The context is typed loosely here: decorators/ sits below context/ (see .dependency-cruiser.mjs).
export type McpBeforeTaskHook = (args: any, ctx: any) => unknown;

/** Options of `@McpTool`. */
export interface McpToolOptions {
  /** Unique tool name (1–128 of `A-Z a-z 0-9 _ - .`); defaults to the method name. */
  name?: string;
  /** Human-readable name for display. */
  title?: string;
  /** What the tool does, for the model. */
  description?: string;
  /**
   * Arguments: a class-validator DTO class, a Standard Schema (zod, valibot…) or a raw JSON Schema with
   * `type: "object"`. Omitted: the tool takes no arguments.
   */
  input?: SchemaInput;
  /** Structured result: a DTO class, a Standard Schema or a JSON Schema; the returned value is checked against it. */
  output?: SchemaInput;
  /** Behaviour hints (read-only, destructive, idempotent, open world). */
  annotations?: McpToolAnnotations;
  /** Icons for clients that show them. */
  icons?: McpIcon[];
  /** Extra `_meta` on the tool definition. */
  _meta?: McpMeta;
  /** Run the tool as a task (`McpToolTaskSupport`); absent: never a task. */
  task?: McpToolTaskSupport;
  /**
   * Input asked before the task is created (`McpBeforeTaskHook`), or the name of a method of the same provider that
   * does it (called with the arguments and the context). Only with `task`.
   */
  beforeTask?: McpBeforeTaskHook | string;
  /**
   * The tool's MCP Apps view and visibility (`_meta.ui` on the tool, plus the deprecated flat `ui/resourceUri`):
   * `{ view: 'ui://…' }` names an `@McpAppView` of this server; `{ visibility: ['app'] }` makes the tool app-only.
   */
  app?: McpToolAppOptions;
  /**
   * A prompt that comes with the tool (`McpCompanionPromptOptions`): listed only to callers who can see the tool,
   * rendered from the tool's name, never running it. Not for app-only tools.
   */
  companionPrompt?: McpCompanionPromptOptions;
}

/**
 * Exposes a provider method as an MCP tool.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Adds two numbers', input: AddDto })
 * add(@McpArgs() { a, b }: AddDto) { return String(a + b); }
 * ```
 */
export const McpTool = (options: McpToolOptions = {}): MethodDecorator => SetMetadata(MCP_TOOL_METADATA, options);
