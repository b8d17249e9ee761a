import type { McpElicitOptions } from './elicit-options.interface.js';
import type { McpInputKind } from './input-kind.js';
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
  /**
   * The answer to `request` under `key`, once the client gave it; until then the call asks for it, carrying
   * `options.state` to the next round (`ctx.requestState`).
   */
  elicit<A>(key: string, request: McpInputRequest<A>, options?: McpElicitOptions): Promise<A>;
  /** Several requests in one round; resolves when all are answered. */
  elicitAll<R extends Record<string, McpInputRequest<unknown>>>(
    requests: R,
    options?: McpElicitOptions,
  ): Promise<McpAnswers<R>>;
  /** Whether this request's client can answer elicitation in `mode` (for fallbacks). */
  canElicit(mode: 'form' | 'url'): boolean;
  /**
   * Whether the calling client declared what `request` (or input of `kind`) needs, so a handler can choose a fallback
   * instead of failing with `-32021`: per request on 2026-07-28, per session on 2025-11-25.
   */
  supports(request: McpInputRequest<unknown> | McpInputKind): boolean;
}
