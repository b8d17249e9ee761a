import { Logger } from '@nestjs/common';
import type { McpChangeEvent } from './mcp-event.interface.js';

/** The listener a change event is about to reach, as the `authorizeDelivery` hook sees it. */
export interface McpListener {
  /** The listener's principal (the module's `principal` option, read when the stream opened); none when anonymous. */
  readonly principal?: string;
}

/**
 * Decides whether one change event may reach one listener (module option `authorizeDelivery`). Called for every
 * event a listener subscribed to, after the event's audience admitted it, so it runs once per event × listener:
 * it must answer synchronously and cheaply (look up a cache, not a database). Only `true` delivers; `false`, any
 * other value (a Promise included) or a throw refuses.
 *
 * @example
 * ```ts
 * authorizeDelivery: (listener, event) => event.type !== 'resourceUpdated' || event.uri.startsWith(`users:${listener.principal}/`)
 * ```
 */
export type McpDeliveryAuthorizer = (listener: McpListener, event: McpChangeEvent) => boolean;

const logger = new Logger('McpDelivery');
/** Hook failures repeat for every event × listener: log at most one of them per interval. */
const LOG_INTERVAL_MS = 10_000;
let lastLogged = 0;
let suppressed = 0;

/**
 * Whether `event` may reach `listener`: an event with an audience only reaches the principals it lists (anonymous
 * listeners never), an event without one reaches every subscriber; then the app's hook, if any, may still refuse.
 * Fails closed: a hook that throws or does not return `true` refuses the delivery.
 */
export function mayDeliver(listener: McpListener, event: McpChangeEvent, authorize: McpDeliveryAuthorizer | undefined): boolean {
  const audience = event.audience;
  // An audience that arrived malformed from a shared bus reaches nobody rather than everybody.
  if (audience !== undefined && (listener.principal === undefined || !Array.isArray(audience?.principals) || !audience.principals.includes(listener.principal))) {
    return false;
  }
  if (authorize === undefined) return true;
  let verdict: unknown;
  try {
    verdict = authorize(listener, event);
  } catch (error) {
    report(`authorizeDelivery threw, so the ${event.type} event was not delivered: ${(error as Error)?.message ?? String(error)}`);
    return false;
  }
  if (verdict === true) return true;
  if (typeof (verdict as PromiseLike<unknown> | undefined)?.then === 'function') {
    report('authorizeDelivery returned a Promise; it must return a boolean synchronously, so the delivery was refused');
  }
  return false;
}

function report(message: string): void {
  const now = Date.now();
  if (now - lastLogged < LOG_INTERVAL_MS) {
    suppressed++;
    return;
  }
  const more = suppressed > 0 ? ` (${suppressed} similar refusals since the last report)` : '';
  lastLogged = now;
  suppressed = 0;
  logger.error(message + more);
}
