import { isJsonObject } from '../protocol/json-object.util.js';

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel']);

/**
 * Whether an answer has the shape of the result of the request it answers (`ElicitResult`, `CreateMessageResult`,
 * `ListRootsResult`). Content is checked against the requested schema later, by the handler's `ctx.elicit`, which asks
 * again (under a new key) when it does not fit.
 */
export function isAnswerShaped(method: string, answer: unknown): boolean {
  if (!isJsonObject(answer)) return false;
  switch (method) {
    case 'elicitation/create':
      return (
        typeof answer.action === 'string' &&
        ELICIT_ACTIONS.has(answer.action) &&
        (answer.content === undefined || isJsonObject(answer.content))
      );
    case 'sampling/createMessage':
      return typeof answer.role === 'string' && answer.content !== undefined;
    case 'roots/list':
      return Array.isArray(answer.roots);
    default:
      return false;
  }
}
