import type { McpCallToolResult, McpContentBlock } from '../protocol/mcp-wire.interface.js';
import { joinedText, type McpCallRecord, McpTestingResult } from './mcp-testing.result.js';

/**
 * The result of `callTool`.
 *
 * @example
 * ```ts
 * const result = await client.callTool('get_service', { name: 'checkout-api' });
 * expect(result.isError).toBe(false);
 * expect(result.structured<ServiceDto>().replicas).toBe(6);
 * ```
 */
export class McpToolCallResult extends McpTestingResult<McpCallToolResult> {
  /** @internal */
  static of(raw: McpCallToolResult, record: McpCallRecord): McpToolCallResult {
    return new McpToolCallResult(raw, record);
  }

  /** The content blocks. */
  get content(): McpContentBlock[] {
    return this.raw.content;
  }

  /** Whether the tool failed (its error, a validation failure or a guard's denial is in the text). */
  get isError(): boolean {
    return this.raw.isError === true;
  }

  /** The structured content, as sent (`undefined` without one). */
  get structuredContent(): unknown {
    return this.raw.structuredContent;
  }

  /** The text blocks, joined by newlines. Throws when there is no text block. */
  text(): string {
    return joinedText(this.raw.content, 'tool result');
  }

  /** The structured content, typed. Throws when the result has none. */
  structured<T = Record<string, unknown>>(): T {
    if (this.raw.structuredContent === undefined) {
      throw new Error(`The tool result has no structuredContent: ${JSON.stringify(this.raw.content)}`);
    }
    return this.raw.structuredContent as T;
  }
}
