import { SetMetadata } from '@nestjs/common';
import type { McpIcon, McpMeta, McpPromptArgument } from '../protocol/mcp-wire.interface.js';
import type { McpCompletionProvider } from './completion-provider.interface.js';
import { MCP_PROMPT_METADATA } from './mcp-metadata.constants.js';

/** One argument of a prompt, with an optional completion provider. */
export interface McpPromptArgumentOptions extends McpPromptArgument {
  /** Suggests values for `completion/complete`. */
  complete?: McpCompletionProvider;
}

/** Options of `@McpPrompt`. */
export interface McpPromptOptions {
  /** Unique prompt name; defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  /** Arguments, all strings on the wire; `required` ones are checked before the method runs. */
  arguments?: McpPromptArgumentOptions[];
  icons?: McpIcon[];
  _meta?: McpMeta;
}

/**
 * Exposes a provider method as an MCP prompt. The method returns messages, a string (one user message),
 * or a full `{ description?, messages }` result.
 *
 * @example
 * ```ts
 * @McpPrompt({ arguments: [{ name: 'topic', required: true }] })
 * explain(@McpArgs('topic') topic: string) { return `Explain ${topic} simply.`; }
 * ```
 */
export const McpPrompt = (options: McpPromptOptions = {}): MethodDecorator => SetMetadata(MCP_PROMPT_METADATA, options);
