import { Injectable } from '@nestjs/common';
import { McpContent, McpCtx, McpPublisher, McpTool, McpToolContext, McpToolError } from 'nest-mcp';
import { PNG_1X1_BASE64, WAV_EMPTY_BASE64 } from './conformance.assets.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The conformance suite's content, error, progress, logging and list-change tools. */
@Injectable()
export class ContentTools {
  constructor(private readonly publisher: McpPublisher) {}

  @McpTool({ name: 'test_simple_text', description: 'Returns a simple text response' })
  simpleText() {
    return 'This is a simple text response for testing.';
  }

  @McpTool({ name: 'test_image_content', description: 'Returns an image' })
  image() {
    return McpContent.image(PNG_1X1_BASE64, 'image/png');
  }

  @McpTool({ name: 'test_audio_content', description: 'Returns audio' })
  audio() {
    return McpContent.audio(WAV_EMPTY_BASE64, 'audio/wav');
  }

  @McpTool({ name: 'test_embedded_resource', description: 'Returns an embedded resource' })
  embedded() {
    return McpContent.embedded('test://embedded-resource', 'This is an embedded resource content.', 'text/plain');
  }

  @McpTool({ name: 'test_multiple_content_types', description: 'Returns text, an image and an embedded resource' })
  mixed() {
    return [
      McpContent.text('Multiple content types test:'),
      McpContent.image(PNG_1X1_BASE64, 'image/png'),
      McpContent.embedded(
        'test://mixed-content-resource',
        JSON.stringify({ test: 'data', value: 123 }),
        'application/json',
      ),
    ];
  }

  @McpTool({ name: 'test_error_handling', description: 'Always fails with a tool error' })
  failing(): never {
    throw new McpToolError('This tool intentionally returns an error for testing');
  }

  @McpTool({ name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100' })
  async withProgress(@McpCtx() ctx: McpToolContext) {
    const progress = ctx.doubleProgress(100);
    for (const value of [0, 50, 100]) {
      progress.emit(value, `Completed step ${value / 50 + 1} of 3`);
      await sleep(50);
    }
    return 'Progress test completed';
  }

  @McpTool({ name: 'test_tool_with_logging', description: 'Logs three info messages' })
  async withLogging(@McpCtx() ctx: McpToolContext) {
    for (const step of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      ctx.log('info', step, 'conformance');
      await sleep(50);
    }
    return 'Logging test completed';
  }

  @McpTool({ name: 'test_logging_tool', description: 'Logs only when the request asks for a log level' })
  logging(@McpCtx() ctx: McpToolContext) {
    ctx.log('info', 'a log line for requests that asked for one');
    return 'Logged';
  }

  @McpTool({ name: 'test_streaming_elicitation', description: 'Returns promptly without asking anything' })
  streamingElicitation() {
    return 'No elicitation needed';
  }

  // #region docs:trigger-tool-change
  @McpTool({ name: 'test_trigger_tool_change', description: 'Publishes a tools list change' })
  async triggerToolChange() {
    await this.publisher.toolsListChanged();
    return 'tools/list_changed published';
  }
  // #endregion docs:trigger-tool-change

  @McpTool({ name: 'test_trigger_prompt_change', description: 'Publishes a prompts list change' })
  async triggerPromptChange() {
    await this.publisher.promptsListChanged();
    return 'prompts/list_changed published';
  }
}
