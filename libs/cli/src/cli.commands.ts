import type { Client } from '@modelcontextprotocol/client';
import type { CliInvocation } from './cli-arguments.parser.js';
import type { ElicitationResponder } from './elicitation-responder.interface.js';
import { type EventsOutput, runEvents } from './events.command.js';
import type { ClientProgress } from './progress.relay.js';
import type { TaskChannel, WireTask } from './task.channel.js';
import { watchTask } from './task.watcher.js';
import { buildArguments, buildPromptArguments } from './tool-arguments.builder.js';

/** What a command needs besides its invocation. */
export interface CommandContext {
  client: Client;
  /** Follows a call that created a task (tasks extension) to its end. */
  tasks: { channel: TaskChannel; responder: ElicitationResponder; onStatus(task: WireTask): void };
  onprogress: (progress: ClientProgress) => void;
  signal: AbortSignal;
  timeoutMs: number;
  /** Sent in the request's `_meta`, so the server's logs and progress events carry the same trace. */
  traceparent: string;
  /** Where `events --follow` writes its lines. */
  events: EventsOutput;
}

/**
 * What a command produced: the result to print (none when the command printed as it went: `events --follow`), and a
 * one-line reason when it counts as a failure.
 */
export interface CommandOutcome {
  result?: Record<string, unknown>;
  failure?: string;
}

type Tool = { name: string; inputSchema?: Record<string, unknown> };

/** Runs the invocation's command against a connected client. */
export async function runCommand(invocation: CliInvocation, context: CommandContext): Promise<CommandOutcome> {
  const { client } = context;
  const options = {
    onprogress: context.onprogress,
    signal: context.signal,
    timeout: context.timeoutMs,
    resetTimeoutOnProgress: true,
  };
  const _meta = { traceparent: context.traceparent };
  switch (invocation.command) {
    case 'tools':
      return { result: { tools: await listAllTools(client, context.signal) } };
    case 'call': {
      const tool = (await listAllTools(client, context.signal)).find((candidate) => candidate.name === invocation.name);
      const args = buildArguments(invocation.args, invocation.json, tool?.inputSchema);
      const result = await callTool(client, { name: invocation.name!, arguments: args, _meta }, options, context);
      return {
        result,
        failure:
          result.isError === true
            ? `tool error: ${firstText(result.content) ?? 'the tool reported an error'}`
            : undefined,
      };
    }
    case 'read':
      return {
        result: (await client.readResource({ uri: invocation.name!, _meta }, options)) as Record<string, unknown>,
      };
    case 'prompt':
      return {
        result: (await client.getPrompt(
          { name: invocation.name!, arguments: buildPromptArguments(invocation.args, invocation.json), _meta },
          options,
        )) as Record<string, unknown>,
      };
    case 'events': {
      const result = await runEvents(invocation, context.tasks.channel, context.signal, context.events);
      // Following ends with Ctrl+C: the command was interrupted (exit 130), having printed every event it got.
      if (invocation.follow && context.signal.aborted) throw context.signal.reason;
      return { result };
    }
  }
}

/**
 * `tools/call`; when the server answers with a task, the task is followed to its end (the client rejects the
 * `resultType: "task"` it cannot read; the channel kept the task).
 */
async function callTool(
  client: Client,
  params: Parameters<Client['callTool']>[0],
  options: Parameters<Client['callTool']>[1],
  context: CommandContext,
): Promise<Record<string, unknown>> {
  const { channel } = context.tasks;
  channel.created = undefined;
  try {
    return (await client.callTool(params, options)) as Record<string, unknown>;
  } catch (error) {
    if (!channel.created) throw error;
    return watchTask(channel.created, { ...context.tasks, signal: context.signal });
  }
}

/** Every page of `tools/list`. */
async function listAllTools(client: Client, signal: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal });
    tools.push(...(page.tools as Tool[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function firstText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const text = content.find((block) => block?.type === 'text')?.text;
  return typeof text === 'string' ? text.split('\n', 1)[0] : undefined;
}
