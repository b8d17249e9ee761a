import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import type { AnswerLedger } from './answer-ledger.js';
import type { McpInputRequest } from './input-request.interface.js';

/**
 * The answers a round starts with, from the call itself: its `inputResponses` and sealed `requestState` (or, in a
 * task's round, the answers and handler state of the task record). A round of this kind that asks for input ends
 * with an `input_required` result carrying a newly sealed state (`McpMrtrService.finish`).
 */
export interface McpSealedRoundAnswers {
  readonly from: 'request';
  readonly scope: McpRequestScope;
  /** The tool, prompt or resource the state is bound to. */
  readonly target: string;
}

/**
 * The answers a round starts with, held by its caller: a 2025-11-25 `beforeTask`, whose questions are asked live
 * on the `tools/call` stream, keeps the answers between its rounds itself. A round of this kind that asks for input
 * ends with the requests it made; nothing is sealed.
 */
export interface McpHeldRoundAnswers {
  readonly from: 'held';
  readonly answers: ReadonlyMap<string, unknown>;
}

/** Where a round's answers come from. */
export type McpRoundAnswers = McpSealedRoundAnswers | McpHeldRoundAnswers;

/**
 * What a round needs of its context: to be closed once the handler is done (`MrtrContext.complete`). Spelled here
 * structurally, since the contexts sit in a layer above this one.
 */
export interface McpRoundContext {
  complete(): void;
}

/** What the handler's round asked for: a sealed `input_required` result, or the requests themselves (held answers). */
export type McpRoundRequests = ReadonlyMap<string, McpInputRequest<unknown>>;

/**
 * How one round ended. Decided from the ledger, not from what the handler threw: a round that asked for input ends
 * with `input_required` even when the handler caught the signal of `ctx.elicit` or threw something else after it.
 */
export type McpRoundEnd<C extends McpRoundContext, Asked> =
  | { readonly kind: 'returned'; readonly value: unknown; readonly ledger: AnswerLedger; readonly context: C }
  | { readonly kind: 'threw'; readonly error: unknown; readonly ledger: AnswerLedger; readonly context: C }
  | { readonly kind: 'input_required'; readonly asked: Asked; readonly ledger: AnswerLedger; readonly context: C };

/** The end of a round whose answers came from the call (`McpSealedRoundAnswers`). */
export type McpSealedRoundEnd<C extends McpRoundContext> = McpRoundEnd<C, JsonObject>;

/** The end of a round whose answers the caller holds (`McpHeldRoundAnswers`). */
export type McpHeldRoundEnd<C extends McpRoundContext> = McpRoundEnd<C, McpRoundRequests>;
