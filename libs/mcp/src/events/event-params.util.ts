import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';

/**
 * An optional non-negative integer param (`maxAgeMs`), or `-32602`. Absent and `null` are both "not given" (SEP-3415
 * treats absent as null).
 */
export function optionalNonNegativeInteger(params: JsonObject, field: string): number | undefined {
  const value = params[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw McpError.invalidParams(`Invalid params: "${field}" must be a non-negative integer`);
  }
  return value;
}

/** An optional positive integer param (`maxEvents`), or `-32602`. */
export function optionalPositiveInteger(params: JsonObject, field: string): number | undefined {
  const value = optionalNonNegativeInteger(params, field);
  if (value === 0) throw McpError.invalidParams(`Invalid params: "${field}" must be a positive integer`);
  return value;
}

/** The replay floor of `maxAgeMs` (ms since the epoch), or undefined. */
export function notBeforeOf(maxAgeMs: number | undefined): number | undefined {
  return maxAgeMs === undefined ? undefined : Date.now() - maxAgeMs;
}
