import type { McpReadResourceResult, McpResourceContents } from '../protocol/mcp-wire.interface.js';
import { joinedText, McpTestingResult } from './mcp-testing.result.js';

/** The result of `readResource`. */
export class McpResourceReadResult extends McpTestingResult<McpReadResourceResult> {
  /** The contents read. */
  get contents(): McpResourceContents[] {
    return this.raw.contents;
  }

  /** The text contents, joined by newlines. Throws when every content is a blob. */
  text(): string {
    return joinedText(this.raw.contents, 'resource');
  }
}
