import type { JsonValue } from '../protocol/json-rpc.interface.js';

/**
 * Most bytes (UTF-8 JSON) of the state a handler attaches to an input round (`ctx.requestState`, `elicit(…, { state })`).
 * It travels to the client and back in every later round, inside a `requestState` of at most 256 KiB: room for
 * references (ids, cursors, a step number), not for data.
 */
export const MAX_HANDLER_STATE_BYTES = 16 * 1024;
/** Deepest nesting accepted: a state is a small record, and the bound stops a cycle before it overflows the stack. */
const MAX_DEPTH = 32;

/**
 * Checks what a handler attaches to a round and returns it: plain JSON (objects, arrays, strings, finite numbers,
 * booleans, null; `undefined` clears the state, and properties set to `undefined` are left out) of at most `MAX_HANDLER_STATE_BYTES`. A `TypeError` names what is
 * not JSON, a `RangeError` the size: both are bugs of the handler, thrown in every round, before anything is sealed.
 */
export function checkHandlerState(state: unknown): JsonValue | undefined {
  if (state === undefined) return undefined;
  checkJson(state, '', 0);
  const bytes = Buffer.byteLength(JSON.stringify(state), 'utf8');
  if (bytes > MAX_HANDLER_STATE_BYTES) {
    throw new RangeError(
      `requestState is ${bytes} bytes of JSON, more than the ${MAX_HANDLER_STATE_BYTES} a round may carry: keep references ` +
        '(ids, cursors) in it and the data they point to in your own store',
    );
  }
  return state as JsonValue;
}

function checkJson(value: unknown, path: string, depth: number): void {
  const where = path === '' ? 'requestState' : `requestState${path}`;
  if (depth > MAX_DEPTH)
    throw new TypeError(`${where} is nested deeper than ${MAX_DEPTH} levels (or refers to itself)`);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${where} is ${value}, which JSON cannot carry`);
      return;
    case 'object': {
      if (value === null) return;
      if (Array.isArray(value)) {
        value.forEach((item, index) => checkJson(item, `${path}[${index}]`, depth + 1));
        return;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) {
        throw new TypeError(
          `${where} is a ${prototype?.constructor?.name ?? 'class instance'}; only plain JSON objects travel`,
        );
      }
      // A property set to undefined is left out, as JSON.stringify does: it reads back the same (absent).
      for (const [key, item] of Object.entries(value))
        if (item !== undefined) checkJson(item, `${path}.${key}`, depth + 1);
      return;
    }
    default:
      throw new TypeError(
        `${where} is ${value === undefined ? 'undefined' : `a ${typeof value}`}, which JSON cannot carry`,
      );
  }
}
