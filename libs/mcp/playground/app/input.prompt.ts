import type { ElicitAnswer, InputRequests } from '../protocol/wire.types.js';

/** Answers by key, as `inputResponses` carries them. */
export type InputAnswers = Record<string, unknown>;

/**
 * Input requests waiting for the user (an MRTR round's, or a task's): the view shows them and calls `submit` with
 * every answer, or `dismiss` to give up the call.
 */
export class InputPrompt {
  readonly answered: Promise<InputAnswers>;
  private settle!: (answers: InputAnswers) => void;
  private fail!: (reason: Error) => void;

  constructor(readonly requests: InputRequests) {
    this.answered = new Promise<InputAnswers>((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
  }

  submit(answers: InputAnswers): void {
    this.settle(answers);
  }

  dismiss(reason = 'The input was not given'): void {
    this.fail(new Error(reason));
  }
}

/** The answer that declines an elicitation (for requests the user closed without answering). */
export const DECLINED: ElicitAnswer = { action: 'decline' };
