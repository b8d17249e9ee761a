/**
 * Thrown by `ctx.elicit` when the answer is not there yet, to stop the handler. The invoker decides from the
 * context, not from this exception, so a handler that catches it still ends the round with `input_required`.
 */
export class InputRequiredSignal extends Error {
  constructor(readonly keys: readonly string[]) {
    super(`Input required: ${keys.join(', ')}`);
    this.name = 'InputRequiredSignal';
  }
}
