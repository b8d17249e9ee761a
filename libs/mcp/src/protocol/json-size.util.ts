/**
 * Whether the JSON text of a parsed value is longer than `limit` bytes, measured without serializing it: the walk
 * adds up the bytes of each token (strings in UTF-8 with their quotes, escapes not expanded) and stops as soon as the
 * sum passes the limit. For values that came from `JSON.parse` (no cycles, depth already bounded). A long array or
 * string costs no more than the limit; an object with very many keys costs one enumeration of its keys (the engine
 * lists them all before the first), so a transport that knows the raw length should compare that instead.
 *
 * @example
 * exceedsJsonBytes({ capabilities: {} }, 8192) // false
 */
export function exceedsJsonBytes(value: unknown, limit: number): boolean {
  return measure(value, limit) > limit;
}

/** The JSON length of `value`, or any number above `budget` once it is known to exceed it. */
function measure(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      // UTF-8 takes at least one byte per UTF-16 code unit: a string longer than the budget needs no exact count.
      return value.length > budget ? budget + 1 : Buffer.byteLength(value, 'utf8') + 2;
    case 'number':
    case 'boolean':
      return String(value).length;
    case 'object': {
      if (value === null) return 4;
      // Brackets, plus one comma or colon per entry beyond what `separator` (0 for the first entry) adds.
      let total = 2;
      let separator = 0;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          total += separator + measure(value[i], budget - total);
          if (total > budget) return total;
          separator = 1;
        }
        return total;
      }
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        total +=
          separator +
          Buffer.byteLength(key, 'utf8') +
          3 +
          measure((value as Record<string, unknown>)[key], budget - total);
        if (total > budget) return total;
        separator = 1;
      }
      return total;
    }
    default:
      return 0;
  }
}
