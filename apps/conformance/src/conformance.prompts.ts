import { Injectable } from '@nestjs/common';
import { McpArgs, McpContent, McpCtx, McpForm, McpInput, McpPrompt, McpPromptContext } from 'nest-mcp';
import { PNG_1X1_BASE64 } from './conformance.assets.js';

/** The conformance suite's prompts. */
@Injectable()
export class ConformancePrompts {
  @McpPrompt({ name: 'test_simple_prompt', description: 'A simple prompt without arguments' })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @McpPrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        complete: (value: string) => ['paris', 'park', 'party'].filter((v) => v.startsWith(value)),
      },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  })
  withArguments(@McpArgs() args: { arg1: string; arg2: string }) {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @McpPrompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  })
  withEmbeddedResource(@McpArgs('resourceUri') resourceUri: string) {
    return [
      {
        role: 'user' as const,
        content: McpContent.embedded(resourceUri, 'Embedded resource content for testing.', 'text/plain'),
      },
      { role: 'user' as const, content: McpContent.text('Please process the embedded resource above.') },
    ];
  }

  @McpPrompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  withImage() {
    return [
      { role: 'user' as const, content: McpContent.image(PNG_1X1_BASE64, 'image/png') },
      { role: 'user' as const, content: McpContent.text('Please analyze the image above.') },
    ];
  }

  @McpPrompt({ name: 'test_input_required_result_prompt', description: 'A prompt that first asks for context' })
  async inputRequired(@McpCtx() ctx: McpPromptContext) {
    const answer = await ctx.elicit(
      'user_context',
      McpInput.form('What should the prompt be about?', McpForm.object({ context: McpForm.string() })),
    );
    const context = answer.action === 'accept' ? answer.content.context : 'nothing in particular';
    return `Write a short note about ${context}.`;
  }
}
