import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpError, McpForm, McpInput, McpTool, McpToolContext } from 'nest-mcp';

const NameForm = McpForm.object({ name: McpForm.string({ description: 'Your name' }) });

const DefaultsForm = McpForm.object({
  name: McpForm.string({ default: 'John Doe' }),
  age: McpForm.integer({ default: 30 }),
  score: McpForm.number({ default: 95.5 }),
  status: McpForm.enum(['active', 'inactive', 'pending'], { default: 'active' }),
  verified: McpForm.boolean({ default: true }),
});

const EnumsForm = McpForm.object({
  untitledSingle: McpForm.enum(['option1', 'option2', 'option3']),
  titledSingle: McpForm.enum([
    { const: 'value1', title: 'First Option' },
    { const: 'value2', title: 'Second Option' },
    { const: 'value3', title: 'Third Option' },
  ]),
  legacyEnum: McpForm.legacyTitledEnum(['opt1', 'opt2', 'opt3'], ['Option One', 'Option Two', 'Option Three']),
  untitledMulti: McpForm.multiEnum(['option1', 'option2', 'option3']),
  titledMulti: McpForm.multiEnum([
    { const: 'value1', title: 'First Choice' },
    { const: 'value2', title: 'Second Choice' },
    { const: 'value3', title: 'Third Choice' },
  ]),
});

const samplingOf = (text: string) =>
  McpInput.sampling({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 100 });

const textOf = (content: unknown): string => {
  const block = Array.isArray(content) ? content[0] : content;
  return typeof block === 'object' && block !== null && 'text' in block
    ? String((block as { text: unknown }).text)
    : '';
};

/** Tools that ask the client for input: elicitation, sampling and roots, one round or several. */
@Injectable()
export class InputTools {
  @McpTool({
    name: 'test_sampling',
    description: 'Asks the client to sample a completion',
    input: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  })
  async sampling(@McpArgs('prompt') prompt: string, @McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('sample', samplingOf(prompt));
    return `LLM response: ${textOf(answer.content)}`;
  }

  @McpTool({
    name: 'test_elicitation',
    description: 'Asks the user for their name',
    input: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  })
  async elicitation(@McpArgs('message') message: string, @McpCtx() ctx: McpToolContext) {
    const form = McpForm.object({
      username: McpForm.string({ description: 'Your username' }),
      email: McpForm.string({ format: 'email' }).optional(),
    });
    const answer = await ctx.elicit('user', McpInput.form(message, form));
    return `User response: action=${answer.action}, content=${JSON.stringify('content' in answer ? answer.content : {})}`;
  }

  @McpTool({ name: 'test_elicitation_sep1034_defaults', description: 'Asks for a form with defaults' })
  async defaults(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit(
      'defaults',
      McpInput.form('Please review and update the form fields with defaults', DefaultsForm),
    );
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify('content' in answer ? answer.content : {})}`;
  }

  @McpTool({ name: 'test_elicitation_sep1330_enums', description: 'Asks for a form with every enum shape' })
  async enums(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('enums', McpInput.form('Please select options from the enum fields', EnumsForm));
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify('content' in answer ? answer.content : {})}`;
  }

  @McpTool({ name: 'test_missing_capability', description: 'Needs the client sampling capability' })
  async missingCapability(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('sample', samplingOf('Say hello'));
    return `LLM response: ${textOf(answer.content)}`;
  }

  @McpTool({ name: 'test_input_required_result_elicitation', description: 'Asks for a name in one round' })
  async mrtrElicitation(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('user_name', McpInput.form('What is your name?', NameForm));
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `No name given (${answer.action})`;
  }

  @McpTool({ name: 'test_input_required_result_sampling', description: 'Asks the client to sample once' })
  async mrtrSampling(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('capital_of_france', samplingOf('What is the capital of France?'));
    return `Sampled: ${textOf(answer.content)}`;
  }

  @McpTool({ name: 'test_input_required_result_list_roots', description: 'Asks for the client roots' })
  async mrtrRoots(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('roots', McpInput.roots());
    return `Roots: ${answer.roots.map((root) => root.uri).join(', ') || '(none)'}`;
  }

  @McpTool({ name: 'test_input_required_result_request_state', description: 'Carries state across one round' })
  async mrtrState(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('confirm', McpInput.form('Continue?', McpForm.object({ ok: McpForm.boolean() })));
    // Reaching this line means the sealed state verified and the answer was accepted.
    return `state-ok: ${answer.action}`;
  }

  @McpTool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks three questions in one round' })
  async mrtrMultiple(@McpCtx() ctx: McpToolContext) {
    const answers = await ctx.elicitAll({
      user_name: McpInput.form('What is your name?', NameForm),
      capital: samplingOf('What is the capital of France?'),
      roots: McpInput.roots(),
    });
    return `Got ${answers.user_name.action}, ${textOf(answers.capital.content)}, ${answers.roots.roots.length} roots`;
  }

  @McpTool({ name: 'test_input_required_result_multi_round', description: 'Asks two questions in two rounds' })
  async mrtrMultiRound(@McpCtx() ctx: McpToolContext) {
    const first = await ctx.elicit('step1', McpInput.form('Step 1: your name?', NameForm));
    const second = await ctx.elicit(
      'step2',
      McpInput.form('Step 2: your colour?', McpForm.object({ color: McpForm.string() })),
    );
    return `Completed: ${first.action}, ${second.action}`;
  }

  @McpTool({ name: 'test_input_required_result_tampered_state', description: 'Rejects a tampered requestState' })
  async mrtrTampered(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('confirm', McpInput.form('Continue?', McpForm.object({ ok: McpForm.boolean() })));
    return `Completed: ${answer.action}`;
  }

  @McpTool({ name: 'test_input_required_result_capabilities', description: 'Asks only what the client can answer' })
  async mrtrCapabilities(@McpCtx() ctx: McpToolContext) {
    if (ctx.canElicit('form')) {
      const answer = await ctx.elicit('user_name', McpInput.form('What is your name?', NameForm));
      return `Elicited: ${answer.action}`;
    }
    if (ctx.clientCapabilities.sampling) {
      const answer = await ctx.elicit('sample', samplingOf('What is your name?'));
      return `Sampled: ${textOf(answer.content)}`;
    }
    throw McpError.missingCapability('This tool needs elicitation or sampling', { sampling: {} });
  }
}
