import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';

/** Reads a required string param, or answers `-32602`. */
export function requireString(params: JsonObject, field: string): string {
  const value = params[field];
  if (typeof value !== 'string' || value.length === 0) {
    throw McpError.invalidParams(`Invalid params: "${field}" must be a non-empty string`);
  }
  return value;
}

/** Reads an optional object param (absent → `{}`), or answers `-32602`. */
export function optionalObject(params: JsonObject, field: string): JsonObject {
  const value = params[field];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw McpError.invalidParams(`Invalid params: "${field}" must be an object`);
  }
  return value as JsonObject;
}
