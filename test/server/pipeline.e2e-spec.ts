import {
  BadRequestException,
  createParamDecorator,
  type PipeTransform,
  UsePipes,
  type ExecutionContext,
  Injectable,
  Module,
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  UseFilters,
} from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/client';
import {
  isInputRequired,
  McpArgs,
  McpExecutionContext,
  McpForm,
  McpInput,
  McpModule,
  McpTool,
  McpToolContext,
  McpToolError,
} from 'nest-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';

/** A Nest custom parameter decorator, as users write them for controllers. */
const CallerAgent = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const request = McpExecutionContext.create(context).getRequest<{ headers: Record<string, string | undefined> }>();
  return request.headers['user-agent'] ?? 'unknown';
});

/** The body headers of the HTTP request, as a guard or a custom decorator reads them. */
const BodyHeaders = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const { headers } = McpExecutionContext.create(context).getRequest<{ headers: Record<string, string | undefined> }>();
  return `${headers['content-type']}; length ${headers['content-length']}`;
});

/** Turns any error into an `McpToolError`, but lets elicitation through untouched. */
@Catch()
class FriendlyErrors implements ExceptionFilter {
  catch(error: unknown, _host: ArgumentsHost) {
    if (isInputRequired(error)) throw error;
    throw new McpToolError(`friendly: ${(error as Error).message}`);
  }
}

interface RenameArgs {
  name: unknown;
  revision: unknown;
}

/** A pipe that fails the way Nest's ValidationPipe does: a BadRequestException with one message per problem. */
class RenameValidationPipe implements PipeTransform<RenameArgs> {
  transform(value: RenameArgs): RenameArgs {
    const problems: string[] = [];
    if (typeof value.name !== 'string') problems.push('name must be a string');
    if (typeof value.revision !== 'number' || value.revision < 1) problems.push('revision must not be less than 1');
    if (problems.length > 0) throw new BadRequestException(problems);
    return value;
  }
}

@Injectable()
class PipelineTools {
  started = 0;

  @McpTool({ description: 'Validated by a pipe', input: { type: 'object' } })
  @UsePipes(RenameValidationPipe)
  rename(@McpArgs() args: RenameArgs) {
    return `renamed to ${String(args.name)} (revision ${String(args.revision)})`;
  }

  @McpTool({
    description: 'Decorated input, context by type',
    input: { type: 'object', properties: { q: { type: 'string' } } },
  })
  mixed(@McpArgs('q') q: string, ctx: McpToolContext) {
    return `${q} via ${ctx.handlerName()}`;
  }

  @McpTool({ description: 'Reports the body headers its request arrived with' })
  bodyHeaders(@BodyHeaders() headers: string) {
    return headers;
  }

  @McpTool({ description: 'Uses a Nest custom parameter decorator' })
  agent(@CallerAgent() agent: string, ctx: McpToolContext) {
    return `${ctx.handlerName()} called by ${agent.length > 0 ? 'a client' : 'nobody'}`;
  }

  @McpTool({ description: 'A filter rewrites errors but elicitation still works' })
  @UseFilters(FriendlyErrors)
  async filtered(ctx: McpToolContext) {
    const answer = await ctx.elicit('ok', McpInput.form('Fail?', McpForm.object({ fail: McpForm.boolean() })));
    if (answer.action === 'accept' && answer.content.fail) throw new Error('boom');
    return 'fine';
  }

  @McpTool({ description: 'Waits until the server shuts down' })
  async untilShutdown(ctx: McpToolContext) {
    this.started++;
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    return 'stopped cleanly';
  }
}

@Module({ imports: [McpModule.forRoot({ name: 'pipeline', version: '1.0.0' })], providers: [PipelineTools] })
class PipelineModule {}

describe.each(ADAPTERS)('Nest pipeline around MCP handlers (%s)', (adapter) => {
  let running: RunningApp;
  let client: Client;
  beforeAll(async () => {
    running = await startApp(adapter, { imports: [PipelineModule] });
    client = await connectClient(running.mcpUrl, { capabilities: { elicitation: { form: {} } } });
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  it('runs a ValidationPipe-style pipe on the input: failures reach the client as isError with its messages', async () => {
    const failed = await client.callTool({ name: 'rename', arguments: { name: 42, revision: 0 } });
    expect(failed.isError, JSON.stringify(failed)).toBe(true);
    const text = (failed.content as { text: string }[])[0].text;
    expect(text).toContain('name must be a string');
    expect(text).toContain('revision must not be less than 1');
    const passed = await client.callTool({ name: 'rename', arguments: { name: 'v2', revision: 3 } });
    expect(passed.content).toEqual([{ type: 'text', text: 'renamed to v2 (revision 3)' }]);
  });

  it('injects the context by type next to a decorated input', async () => {
    const result = await client.callTool({ name: 'mixed', arguments: { q: 'hello' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello via mixed' }]);
  });

  it('runs Nest custom parameter decorators with the MCP execution context', async () => {
    const result = await client.callTool({ name: 'agent', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'agent called by a client' }]);
  });

  it('shows handlers the body headers the client sent (the body capture hides them from the framework parser only)', async () => {
    const params = { name: 'bodyHeaders', arguments: {} };
    const rawBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { ...params, _meta: requestMeta() },
    });
    const response = await mcpPost(running.mcpUrl, { method: 'tools/call', params, rawBody });
    expect(response.status).toBe(200);
    const text = (response.json as { result: { content: { text: string }[] } }).result.content[0].text;
    expect(text).toBe(`application/json; length ${Buffer.byteLength(rawBody)}`);
  });

  it('lets an exception filter rewrite errors while elicitation passes through it', async () => {
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { fail: true } }));
    const failed = await client.callTool({ name: 'filtered', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: 'friendly: boom' }]);
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { fail: false } }));
    const fine = await client.callTool({ name: 'filtered', arguments: {} });
    expect(fine.content).toEqual([{ type: 'text', text: 'fine' }]);
  });
});

describe.each(ADAPTERS)('shutdown with a call in flight (%s)', (adapter) => {
  it('aborts ctx.signal, answers the call, and closes', async () => {
    const running = await startApp(adapter, { imports: [PipelineModule] });
    const tools = running.app.get(PipelineTools);
    const pending = mcpPost(running.mcpUrl, { method: 'tools/call', params: { name: 'untilShutdown', arguments: {} } });
    await expect.poll(() => tools.started, { timeout: 5_000 }).toBe(1);
    const closed = running.close();
    const response = await pending;
    expect(response.status).toBe(200);
    const body = response.json as { result: { content: unknown[] } };
    expect(body.result.content).toEqual([{ type: 'text', text: 'stopped cleanly' }]);
    await closed;
  });
});
