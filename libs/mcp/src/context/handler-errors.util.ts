import { IntrinsicException } from '@nestjs/common';

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
