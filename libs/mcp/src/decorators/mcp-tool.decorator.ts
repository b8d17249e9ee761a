import { SetMetadata } from '@nestjs/common';
import type { McpIcon, McpMeta, McpToolAnnotations } from '../protocol/mcp-wire.interface.js';
import type { SchemaInput } from '../schema/index.js';
import { MCP_TOOL_METADATA } from './mcp-metadata.constants.js';

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
