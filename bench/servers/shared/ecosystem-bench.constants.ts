/** The input of `lookup`, the read-only tool of the `cache` workload. */
export const LOOKUP_INPUT_SCHEMA = {
  type: 'object',
  properties: { query: { type: 'string', maxLength: 64 } },
  required: ['query'],
  additionalProperties: false,
} as const;

/** Rows `lookup` answers: 200 of them, filtered and sorted — a stand-in for a query worth caching (about 0.1 ms). */
export function lookupRows(query: string): Array<{ id: number; name: string }> {
  const rows = Array.from({ length: 2_000 }, (_, id) => ({ id, name: `${query}-${(id * 7919) % 2_000}` }));
  return rows
    .filter((row) => row.id % 10 === 0)
    .sort((a, b) => a.name.localeCompare(b.name))
    .slice(0, 200);
}
