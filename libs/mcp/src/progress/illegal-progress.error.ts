/**
 * A progress value broke the emitter's contract (not finite, not strictly increasing, a fraction outside
 * [0, 1], …). Thrown whether or not the client asked for progress, so that a bug shows up in every test run and
 * not only when a client happens to send a progress token.
 */
export class IllegalProgressError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'IllegalProgressError';
  }
}
