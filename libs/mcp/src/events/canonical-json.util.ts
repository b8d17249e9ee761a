/**
 * The canonical JSON of a value (RFC 8785's ordering: object keys sorted by code unit, recursively, no whitespace):
 * two argument objects that differ only in key order give the same text, so they key the same subscription
 * (SEP-3415, "Key composition"). Only JSON values are expected (what a JSON-RPC request can carry).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}
