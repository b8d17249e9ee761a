import type { McpInputRequest } from './input-request.interface.js';

/** Answers of `elicitAll`, by key. */
export type McpAnswers<R extends Record<string, McpInputRequest<unknown>>> = {
  [K in keyof R]: R[K] extends McpInputRequest<infer A> ? A : never;
};

/**
 * Asks the client for input during a call (Multi Round-Trip Requests). The call ends with `input_required`, the
 * client answers and retries, and the handler runs again from the top with the answers available: code before the
 * last `elicit` must be safe to run once per round.
 */
export interface McpElicitor {
  /** The answer to `request` under `key`, once the client gave it; until then the call asks for it. */
  elicit<A>(key: string, request: McpInputRequest<A>): Promise<A>;
  /** Several requests in one round; resolves when all are answered. */
  elicitAll<R extends Record<string, McpInputRequest<unknown>>>(requests: R): Promise<McpAnswers<R>>;
  /** Whether this request's client can answer elicitation in `mode` (for fallbacks). */
  canElicit(mode: 'form' | 'url'): boolean;
}
