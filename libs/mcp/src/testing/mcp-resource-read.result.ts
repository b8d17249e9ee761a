import type { McpReadResourceResult, McpResourceContents } from '../protocol/mcp-wire.interface.js';
import { joinedText, type McpCallRecord, McpTestingResult } from './mcp-testing.result.js';

/** The result of `readResource`. */
export class McpResourceReadResult extends McpTestingResult<McpReadResourceResult> {
  /** @internal */
  static of(raw: McpReadResourceResult, record: McpCallRecord): McpResourceReadResult {
    return new McpResourceReadResult(raw, record);
  }

  /** The contents read. */
  get contents(): McpResourceContents[] {
    return this.raw.contents;
  }

  /** The text contents, joined by newlines. Throws when every content is a blob. */
  text(): string {
    return joinedText(this.raw.contents, 'resource');
  }
}
