import { Logger } from '@nestjs/common';
import type { McpDeliveryAuthorizer, McpListener } from '../protocol/delivery-authorizer.interface.js';
import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';

const logger = new Logger('McpDelivery');
/** Hook failures repeat for every event × listener: log at most one of them per interval. */
const LOG_INTERVAL_MS = 10_000;
let lastLogged = 0;
let suppressed = 0;

/**
 * Whether `event` may reach `listener`: an event with an audience only reaches the principals it lists (anonymous
 * listeners never), an event without one reaches every subscriber; then the app's hook, if any, may still refuse.
 * Fails closed: a hook that throws or does not return `true` refuses the delivery. A `resync` reaches every listener
 * and is not shown to the hook: it reveals nothing, and only repeats what each listener already follows.
 */
export function mayDeliver(
  listener: McpListener,
  event: McpChangeEvent,
  authorize: McpDeliveryAuthorizer | undefined,
): boolean {
  if (event.type === 'resync') return true;
  const audience = event.audience;
  // An audience that arrived malformed from a shared bus reaches nobody rather than everybody.
  if (
    audience !== undefined &&
    (listener.principal === undefined ||
      !Array.isArray(audience?.principals) ||
      !audience.principals.includes(listener.principal))
  ) {
    return false;
  }
  if (authorize === undefined) return true;
  let verdict: unknown;
  try {
    verdict = authorize(listener, event);
  } catch (error) {
    report(
      `authorizeDelivery threw, so the ${event.type} event was not delivered: ${(error as Error)?.message ?? String(error)}`,
    );
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
