import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpInput, McpTool, McpToolContext, McpToolError, type SamplingAnswer } from 'nest-mcp';
import { OPS_READ, OpsScopes } from '../access/index.js';
import { ServiceCatalog } from '../services/index.js';
import { ServiceNameDto } from '../services/dto/index.js';

/** Log lines shown in the digest a client without sampling gets. */
const DIGEST_LINES = 3;

/**
 * `summarize_logs`: the client's model summarises the recent logs of a service (sampling). A client that cannot
 * sample gets a plain digest instead of an error: the handler tests the capability first (`ctx.supports`).
 */
@Injectable()
@OpsScopes(OPS_READ)
export class LogSummaryTool {
  constructor(private readonly catalog: ServiceCatalog) {}

  // #region docs:summarize-logs
  @McpTool({
    name: 'summarize_logs',
    title: 'Summarize the logs of a service',
    description:
      "Summarises the recent logs of a service with the client's model (sampling). A client without sampling gets a " +
      'digest instead: the number of lines and the latest ones.',
    input: ServiceNameDto,
    annotations: { readOnlyHint: true },
  })
  async summarizeLogs(@McpArgs('name') name: string, @McpCtx() ctx: McpToolContext): Promise<string> {
    const logs = this.catalog.logsOf(name);
    if (!logs)
      throw new McpToolError(`No service named "${name}". Known services: ${this.catalog.names().join(', ')}.`);
    // The fallback: a client that did not declare sampling would make ctx.elicit fail with -32021.
    if (!ctx.supports('sampling')) return digest(name, logs);
    const answer = await ctx.elicit(
      'summary',
      McpInput.sampling({
        systemPrompt: 'You help an on-call engineer. Be factual and brief.',
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Summarise the recent logs of ${name} in two sentences:\n${logs.join('\n')}`,
            },
          },
        ],
        maxTokens: 200,
      }),
    );
    return `Summary of the ${name} logs (by ${answer.model}): ${textOf(answer)}`;
  }
  // #endregion docs:summarize-logs
}

/** What a client without sampling gets: how many lines there are, and the latest ones as they are. */
function digest(name: string, logs: readonly string[]): string {
  const latest = logs.slice(-DIGEST_LINES).map((line) => `  ${line}`);
  return [
    `${name} has ${logs.length} recent log line(s); the latest:`,
    ...latest,
    '(No summary: this client cannot sample.)',
  ].join('\n');
}

/** The text of a sampled message (one content block, or the text blocks of a list). */
function textOf(answer: SamplingAnswer): string {
  const blocks = (Array.isArray(answer.content) ? answer.content : [answer.content]) as Array<{
    type?: string;
    text?: unknown;
  }>;
  return blocks
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join(' ');
}
