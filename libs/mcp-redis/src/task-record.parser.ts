import type { McpTaskRecord } from 'nest-mcp/backend';

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/**
 * A task record read from Redis (a key or a published change), or `undefined` when the text is not JSON of a task:
 * checks the fields the task methods and workers rely on (the scopes and token claims that authorize its requests and
 * rounds included), so that a foreign or corrupt value is ignored rather than served.
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
    (record.requiredScopes === undefined || isStringArray(record.requiredScopes)) &&
    (record.accessToken === undefined || isAccessToken(record.accessToken)) &&
    (record.traceContext === undefined ||
      (isObject(record.traceContext) && typeof record.traceContext.traceparent === 'string')) &&
    Number.isSafeInteger(record.version);
  return valid ? (record as unknown as McpTaskRecord) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The shape of an `McpAccessToken` as the access rules read it (subject, scopes, claims). */
function isAccessToken(value: unknown): boolean {
  return isObject(value) && typeof value.subject === 'string' && isStringArray(value.scopes) && isObject(value.claims);
}
