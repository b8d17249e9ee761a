import { createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import { McpExecutionContext, McpTool, McpToolContext } from 'nest-mcp';

// #region docs:caller-agent
const CallerAgent = createParamDecorator(
  (_data: unknown, context: ExecutionContext) =>
    McpExecutionContext.create(context).getRequest<{ headers: Record<string, string> }>().headers['user-agent'],
);

@Injectable()
export class AgentTools {
  @McpTool({ description: 'Who is calling' })
  agent(@CallerAgent() agent: string, ctx: McpToolContext) {
    return `${ctx.handlerName()} called by ${agent}`;
  }
}
// #endregion docs:caller-agent
