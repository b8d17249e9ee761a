import { IntrinsicException, Logger } from '@nestjs/common';
import { McpCallCancelledError } from './call-cancelled.error.js';

const loggedByNest = new WeakSet<object>();

/**
 * Nest's exception-filter layer (which wraps decorated handlers) already logs unexpected errors with their stack;
 * remembering which ones keeps the library from logging them a second time.
 */
export function noteNestLogged(error: unknown): void {
  if (error instanceof Error && !(error instanceof IntrinsicException)) loggedByNest.add(error);
}

/** Whether Nest already logged this error. */
export function wasNestLogged(error: unknown): boolean {
  return typeof error === 'object' && error !== null && loggedByNest.has(error);
}

const cancellationLogger = new Logger('McpHandlers');

/**
 * Calls a handler's method; a failure once its call's signal has fired (`signalOf(args)`, asked only then) becomes
 * an `McpCallCancelledError`, noted with a debug line only: the method most likely gave up because it was told to
 * (`ctx.signal`). A synchronous result or throw stays synchronous, so the method's own return value (a promise, an
 * observable, a value) reaches Nest as it is. `handler` names it in the debug line (`Handler "deploy"`, `runtime
 * tool "ping"`). `signalOf` should be made once per handler: a call that succeeds then costs no closure (one for a
 * promise, to catch its rejection).
 */
export function callQuietlyWhenCancelled(
  method: (...args: unknown[]) => unknown,
  thisArg: unknown,
  args: unknown[],
  signalOf: (args: unknown[]) => AbortSignal | undefined,
  handler: string,
): unknown {
  let result: unknown;
  try {
    result = method.apply(thisArg, args);
  } catch (error) {
    throw cancelledOr(error, signalOf(args), handler);
  }
  if (!isPromiseLike(result)) return result;
  return result.then(undefined, (error: unknown) => {
    throw cancelledOr(error, signalOf(args), handler);
  });
}

/** `error` as the call's failure: an `McpCallCancelledError` wrapping it once `signal` has fired. */
function cancelledOr(error: unknown, signal: AbortSignal | undefined, handler: string): unknown {
  if (!signal?.aborted || error instanceof McpCallCancelledError) return error;
  cancellationLogger.debug(
    `${handler} ended after its call was cancelled: ${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? String(error)}`,
  );
  return new McpCallCancelledError(error, signal.reason);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
