/**
 * Whether `value` is plain JSON (null, booleans, finite numbers, strings, arrays and plain objects of them), keys whose value is
 * `undefined` aside (JSON drops them): what may travel to other replicas in a shared registry record.
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1));
  if (typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.values(value).every((item) => item === undefined || isPlainJson(item, depth + 1));
}
