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
 * Runs a handler for one round of a call (ADR 0003): opens the round's answers, runs the handler with its context,
 * and decides from the context — not from what was thrown — whether the round ends with `input_required`. A 429 or 503
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
    const begun = this.mrtr.begin(scope, target);
    // Awaited only when a single-use store records the state: the plain path keeps no extra await.
    const ledger = begun instanceof Promise ? await begun : begun;
    const context = createContext(ledger);
    let outcome: InvocationOutcome;
    try {
      outcome = { kind: 'returned', value: await handler.invoke(input, context) };
    } catch (error) {
      outcome = { kind: 'threw', error: pipelineRefusal(error, context.httpResponse) ?? error };
    } finally {
      context.complete();
    }
    const inputRequired = this.mrtr.finish(ledger, scope, target);
    return inputRequired ? { kind: 'input_required', result: inputRequired } : outcome;
  }
}
