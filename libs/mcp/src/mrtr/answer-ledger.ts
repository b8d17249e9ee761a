import type { JsonValue } from '../protocol/json-rpc.interface.js';
import type { McpInputRequest } from './input-request.interface.js';

/**
 * The answers a call has (carried in `requestState` plus those of this retry), what it asked for this round, and the
 * handler's own state carried between rounds. One per call; handlers see it only through `ctx.elicit` and
 * `ctx.requestState`.
 */
export class AnswerLedger {
  private readonly pending = new Map<string, McpInputRequest<unknown>>();

  constructor(
    private readonly answers: Map<string, unknown>,
    /** The handler's state: what an earlier round attached (opened from `requestState`), until the handler changes it. */
    public state?: JsonValue,
    /** The MRTR round this call is: 1 for the first call, n for the (n-1)-th retry carrying a `requestState`. */
    public readonly round = 1,
  ) {}

  answerFor(key: string): unknown {
    return this.answers.get(key);
  }

  /** Whether the call came with any answer (a retry of an earlier round). */
  get hasAnswers(): boolean {
    return this.answers.size > 0;
  }

  has(key: string): boolean {
    return this.answers.has(key);
  }

  /** Drops an answer whose content did not validate, so it is asked again. */
  forget(key: string): void {
    this.answers.delete(key);
  }

  ask(key: string, request: McpInputRequest<unknown>): void {
    this.pending.set(key, request);
  }

  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  pendingRequests(): ReadonlyMap<string, McpInputRequest<unknown>> {
    return this.pending;
  }

  acceptedAnswers(): Record<string, unknown> {
    return Object.fromEntries(this.answers);
  }
}
