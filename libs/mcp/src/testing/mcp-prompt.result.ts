import type { McpGetPromptResult, McpPromptMessage } from '../protocol/mcp-wire.interface.js';
import { joinedText, type McpCallRecord, McpTestingResult } from './mcp-testing.result.js';

/** The result of `getPrompt`. */
export class McpPromptResult extends McpTestingResult<McpGetPromptResult> {
  /** @internal */
  static of(raw: McpGetPromptResult, record: McpCallRecord): McpPromptResult {
    return new McpPromptResult(raw, record);
  }

  /** The prompt's messages. */
  get messages(): McpPromptMessage[] {
    return this.raw.messages;
  }

  /** The prompt's description, when it has one. */
  get description(): string | undefined {
    return this.raw.description;
  }

  /** The text of the text messages, joined by newlines. Throws when no message is text. */
  text(): string {
    return joinedText(
      this.raw.messages.map((message) => message.content),
      'prompt',
    );
  }
}
