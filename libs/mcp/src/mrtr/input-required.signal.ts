import { IntrinsicException } from '@nestjs/common';

/**
 * An `IntrinsicException` (never logged as a failure) thrown by `ctx.elicit` when the answer is not there yet, to stop the handler. The invoker decides from the
 * context, not from this exception, so a handler that catches it still ends the round with `input_required`.
 */
export class InputRequiredSignal extends IntrinsicException {
  constructor(readonly keys: readonly string[]) {
    super(`Input required: ${keys.join(', ')}`);
    this.name = 'InputRequiredSignal';
  }
}

/**
 * Whether an error is the input-required signal of `ctx.elicit` — for interceptors and exception filters that must
 * let it pass untouched (the round ends with `input_required` whatever they do).
 */
export function isInputRequired(error: unknown): error is InputRequiredSignal {
  return error instanceof InputRequiredSignal;
}
