import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  McpArgs,
  McpCtx,
  McpError,
  McpErrorCode,
  McpForm,
  McpInput,
  McpTool,
  McpToolContext,
  McpToolError,
} from 'nest-mcp';

const ConfirmForm = McpForm.object({ confirm: McpForm.boolean({ title: 'Confirm?' }) });
/** One form for both keys of `multi_input`: the suite answers each with `{ name, confirm }`. */
const NameAndConfirmForm = McpForm.object({
  name: McpForm.string({ description: 'Your name' }).optional(),
  confirm: McpForm.boolean({ title: 'Confirm?' }).optional(),
});
const NameForm = McpForm.object({ name: McpForm.string({ description: 'Your name' }) });

/** Waits `ms`, or throws once the task is cancelled (`ctx.signal`). */
const work = (ms: number, ctx: McpToolContext) => sleep(ms, undefined, { signal: ctx.signal });

/** The fixture tools of the conformance suite's tasks extension scenarios (their exact names). */
@Injectable()
export class TaskTools {
  @McpTool({
    name: 'greet',
    description: 'Greets by name, at once (never a task)',
    input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  })
  greet(@McpArgs('name') name: string) {
    return `Hello, ${name}!`;
  }

  @McpTool({
    name: 'slow_compute',
    description:
      'Computes for `seconds` seconds; a task when the client can take one; settles to cancelled when cancelled',
    input: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: 3600 }, label: { type: 'string' } },
      required: ['seconds'],
    },
    task: 'optional',
  })
  async slowCompute(@McpArgs() { seconds, label }: { seconds: number; label?: string }, @McpCtx() ctx: McpToolContext) {
    const progress = ctx.percentProgress();
    const steps = Math.max(1, Math.ceil(seconds * 4));
    for (let step = 1; step <= steps && seconds > 0; step++) {
      await work((seconds * 1000) / steps, ctx);
      progress.emit(step / steps, `computing ${label ?? ''}`.trim());
    }
    return `Computed ${label ?? 'result'} in ${seconds}s`;
  }

  @McpTool({ name: 'failing_job', description: 'A task that ends with a tool error (isError: true)', task: 'required' })
  async failingJob(@McpCtx() ctx: McpToolContext) {
    await work(1000, ctx);
    throw new McpToolError('The job failed: the input could not be processed');
  }

  @McpTool({ name: 'protocol_error_job', description: 'A task that ends with a JSON-RPC error', task: 'required' })
  async protocolErrorJob(@McpCtx() ctx: McpToolContext) {
    await work(200, ctx);
    throw new McpError(McpErrorCode.InternalError, 'The job hit an internal error');
  }

  @McpTool({
    name: 'confirm_delete',
    description: 'Asks for confirmation before deleting a file (a task with one input round)',
    input: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    task: 'required',
  })
  async confirmDelete(@McpArgs('filename') filename: string, @McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('confirm', McpInput.form(`Delete ${filename}?`, ConfirmForm));
    const confirmed = answer.action === 'accept' && answer.content.confirm;
    return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
  }

  @McpTool({
    name: 'multi_input',
    description: 'Asks two questions at once (a task with two outstanding inputs)',
    task: 'required',
  })
  async multiInput(@McpCtx() ctx: McpToolContext) {
    const answers = await ctx.elicitAll({
      name: McpInput.form('What is your name?', NameAndConfirmForm),
      confirm: McpInput.form('Do you confirm?', NameAndConfirmForm),
    });
    const name = answers.name.action === 'accept' ? answers.name.content.name : undefined;
    const confirmed = answers.confirm.action === 'accept' && answers.confirm.content.confirm === true;
    return `name=${name ?? ''}, confirmed=${confirmed}`;
  }

  // #region docs:before-task
  @McpTool({
    name: 'test_tool_with_task',
    description: 'Asks for a name through MRTR on the call, then runs as a task that greets it',
    task: 'required',
    beforeTask: 'askName',
  })
  async toolWithTask(@McpCtx() ctx: McpToolContext) {
    const answer = await ctx.elicit('user_name', McpInput.form('What is your name?', NameForm));
    await work(100, ctx);
    return `Hello, ${answer.action === 'accept' ? answer.content.name : 'stranger'}!`;
  }

  /** `beforeTask` of `test_tool_with_task`: the MRTR round before the task is created. */
  async askName(_args: unknown, ctx: McpToolContext) {
    await ctx.elicit('user_name', McpInput.form('What is your name?', NameForm));
  }
  // #endregion docs:before-task
}
