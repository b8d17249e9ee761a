import { Injectable } from '@nestjs/common';
import type { McpHandler } from '../context/mcp-handler.interface.js';
import type { MrtrContext } from '../context/mrtr.context.js';
import type { AnswerLedger } from '../mrtr/answer-ledger.js';
import { pipelineRefusal } from '../context/pipeline-refusal.util.js';
import { McpMrtrService } from '../mrtr/mrtr.service.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';

/** How one handler run ended. */
export type InvocationOutcome =
  | { kind: 'returned'; value: unknown }
  | { kind: 'threw'; error: unknown }
  | { kind: 'input_required'; result: JsonObject };

/**
 * Runs a handler for one round of a call (ADR 0003) through `McpMrtrService.round`, which opens the round's answers,
 * runs the handler with its context and decides from the context — not from what was thrown — whether the round ends
 * with `input_required`. A 429 or 503
 * from the pipeline (a rate-limit guard) becomes the protocol refusal here, for every kind of handler (`pipelineRefusal`).
 */
@Injectable()
export class McpHandlerInvoker {
  constructor(private readonly mrtr: McpMrtrService) {}

  async invoke(
    scope: McpRequestScope,
    target: string,
    handler: McpHandler,
    input: unknown,
    createContext: (ledger: AnswerLedger) => MrtrContext,
  ): Promise<InvocationOutcome> {
    const end = await this.mrtr.round({ from: 'request', scope, target }, createContext, (context) =>
      handler.invoke(input, context),
    );
    switch (end.kind) {
      case 'input_required':
        return { kind: 'input_required', result: end.asked };
      case 'threw':
        return { kind: 'threw', error: pipelineRefusal(end.error, end.context.httpResponse) ?? end.error };
      default:
        return { kind: 'returned', value: end.value };
    }
  }
}
