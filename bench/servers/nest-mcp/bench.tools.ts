import { Injectable, type Type } from '@nestjs/common';
import { McpArgs, McpCtx, McpForm, McpInput, McpTool, McpToolContext } from '../../../libs/mcp/src/index.js';
import {
  COUNT_INPUT_SCHEMA,
  ECHO_INPUT_SCHEMA,
  GENERATED_TOOL_SCHEMA,
  YIELD_EVERY,
  yieldToIo,
} from '../shared/bench-tools.constants.js';

/** The answer `confirm` asks for (MRTR workload). */
export const ConfirmForm = McpForm.object({ confirm: McpForm.boolean({ title: 'Proceed?', default: false }) });

/** The bench tools every server exposes: `echo` and `count`; plus `confirm` (one MRTR round), nest-mcp only. */
@Injectable()
export class BenchTools {
  @McpTool({ description: 'Returns its text', input: ECHO_INPUT_SCHEMA })
  echo(@McpArgs('text') text: string): string {
    return text;
  }

  @McpTool({ description: 'Sends n progress notifications, then returns', input: COUNT_INPUT_SCHEMA })
  async count(@McpArgs('n') n: number, @McpCtx() ctx: McpToolContext): Promise<string> {
    const progress = ctx.countingProgress(n);
    for (let index = 1; index <= n; index++) {
      progress.emit();
      // Every server's count tool yields at the same rhythm, so that socket writes and drains can run.
      if (index % YIELD_EVERY === 0) await yieldToIo();
    }
    return `counted ${n}`;
  }

  @McpTool({ description: 'Asks for one confirmation (one MRTR round), then returns' })
  async confirm(@McpCtx() ctx: McpToolContext): Promise<string> {
    const answer = await ctx.elicit('confirm', McpInput.form('Proceed?', ConfirmForm));
    return answer.action === 'accept' && answer.content.confirm ? 'confirmed' : 'declined';
  }
}

/** `echo_task`: `echo` that runs as a task when the request declares the tasks extension (`--tasks`, tasks workload). */
@Injectable()
export class BenchTaskTools {
  @McpTool({
    name: 'echo_task',
    description: 'Returns its text; a task for a client with the tasks extension',
    input: ECHO_INPUT_SCHEMA,
    task: 'optional',
  })
  echoTask(@McpArgs('text') text: string): string {
    return text;
  }
}

/**
 * A provider with `count` generated tools (`tool_0` … `tool_{count-1}`), decorated exactly as `@McpTool` and
 * `@McpArgs` would be written by hand (bootstrap and `tools/list` workload).
 */
export function generatedToolsProvider(count: number): Type {
  class GeneratedTools {}
  for (let index = 0; index < count; index++) {
    const name = `tool_${index}`;
    Object.defineProperty(GeneratedTools.prototype, name, {
      value: function (this: GeneratedTools, text: string): string {
        return `${name}: ${text}`;
      },
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(GeneratedTools.prototype, name) as PropertyDescriptor;
    Reflect.defineMetadata('design:paramtypes', [String], GeneratedTools.prototype, name);
    McpArgs('text')(GeneratedTools.prototype, name, 0);
    McpTool({
      description: `Generated tool number ${index}, for the bootstrap benchmark`,
      input: GENERATED_TOOL_SCHEMA,
    })(GeneratedTools.prototype, name, descriptor);
  }
  Injectable()(GeneratedTools);
  return GeneratedTools;
}
