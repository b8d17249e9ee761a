import type { McpTaskRecord } from 'nest-mcp';

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/**
 * A task record read from Redis (a key or a published change), or `undefined` when the text is not JSON of a task:
 * checks the fields the task methods and workers rely on, so that a foreign or corrupt value is ignored rather than
 * served.
 * @internal
 */
export function parseTaskRecord(text: string): McpTaskRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const valid =
    typeof record.taskId === 'string' &&
    record.taskId.length > 0 &&
    (record.owner === null || typeof record.owner === 'string') &&
    (record.wire === 'modern' || record.wire === 'legacy') &&
    typeof record.method === 'string' &&
    isObject(record.params) &&
    isObject(record.clientCapabilities) &&
    typeof record.protocolVersion === 'string' &&
    typeof record.status === 'string' &&
    STATUSES.has(record.status) &&
    Number.isFinite(record.createdAt) &&
    Number.isFinite(record.lastUpdatedAt) &&
    (record.ttlMs === null || Number.isFinite(record.ttlMs)) &&
    Number.isFinite(record.pollIntervalMs) &&
    isObject(record.answers) &&
    Array.isArray(record.issuedKeys) &&
    Number.isSafeInteger(record.version);
  return valid ? (record as unknown as McpTaskRecord) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
