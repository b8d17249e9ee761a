import type { McpClient, RequestOptions } from '../protocol/mcp.client.js';
import type { FinalResult, InputRequests } from '../protocol/wire.types.js';
import type { InputAnswers } from './input.prompt.js';

/** Who answers the input requests of a round (the user, through the page). */
export type Answerer = (requests: InputRequests) => Promise<InputAnswers>;

/**
 * One request with its Multi Round-Trip rounds (spec 2026-07-28: basic/patterns/mrtr): while the result is
 * `input_required`, the user answers its `inputRequests` and the same request is sent again as a new request with
 * `inputResponses` and the `requestState` echoed byte for byte. `onRound` hears each round's number before it is sent.
 */
export async function withRounds(
  client: McpClient,
  method: string,
  params: Record<string, unknown>,
  answer: Answerer,
  options: RequestOptions & { onRound?: (round: number) => void } = {},
): Promise<FinalResult> {
  let retry: { inputResponses?: InputAnswers; requestState?: string } = {};
  for (let round = 1; ; round++) {
    options.onRound?.(round);
    const result = await client.request<FinalResult>(method, { ...params, ...retry }, options);
    if (result.resultType !== 'input_required') return result;
    const requests = (result.inputRequests ?? {}) as InputRequests;
    // A result with only requestState asks to come back: retried at once, with no answers.
    const answers = Object.keys(requests).length > 0 ? await answer(requests) : undefined;
    options.signal?.throwIfAborted();
    retry = {
      ...(answers !== undefined && { inputResponses: answers }),
      ...(typeof result.requestState === 'string' && { requestState: result.requestState }),
    };
  }
}
