import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { LEGACY_RESOURCE_NOT_FOUND } from './legacy-versions.constants.js';
import { isJsonObject } from '../protocol/json-object.util.js';

/** A tool's `execution.taskSupport` on this wire, by name; `undefined`: forbidden (the default, left out). */
export type LegacyTaskSupportOf = (name: string) => 'optional' | 'required' | undefined;

/**
 * Adapts a result to the 2025-11-25 shapes (what spec 2026-07-28: changelog lists as changed; the 2025-11-25 `Result`,
 * `CallToolResult` and `Tool` of `schema/2025-11-25/schema.ts`): no `resultType`, no cache hints, `structuredContent`
 * only as an object, and `outputSchema` only with an object root. With `taskSupport`, tools that may run as tasks
 * carry `execution.taskSupport` (spec 2025-11-25: basic/utilities/tasks, "Tool-Level Negotiation").
 */
export function toLegacyResult(method: string, result: JsonObject, taskSupport?: LegacyTaskSupportOf): JsonObject {
  const { resultType: _resultType, ttlMs: _ttlMs, cacheScope: _cacheScope, ...legacy } = result;
  if (method === 'tools/list' && Array.isArray(legacy.tools)) {
    legacy.tools = legacy.tools.map((tool: Record<string, unknown>) => {
      const support = taskSupport?.(String(tool.name));
      const withTasks =
        support === undefined
          ? tool
          : { ...tool, execution: { ...(isJsonObject(tool.execution) ? tool.execution : {}), taskSupport: support } };
      if (
        withTasks.outputSchema === undefined ||
        (isJsonObject(withTasks.outputSchema) && withTasks.outputSchema.type === 'object')
      )
        return withTasks;
      const { outputSchema: _dropped, ...rest } = withTasks;
      return rest;
    });
  }
  if (method === 'tools/call' && 'structuredContent' in legacy && !isJsonObject(legacy.structuredContent)) {
    delete legacy.structuredContent;
  }
  return legacy;
}

/**
 * Adapts an error to the 2025-11-25 codes: resource not found is `-32002` there, and the 2026 codes
 * `-32020..-32022` do not exist (they become `-32602`). Errors travel with HTTP 200 on this wire.
 */
export function toLegacyError(error: McpError): McpError {
  if (error.code === McpErrorCode.InvalidParams && error.message === 'Resource not found') {
    return new McpError(LEGACY_RESOURCE_NOT_FOUND, error.message, error.data);
  }
  const modernOnly =
    error.code === McpErrorCode.HeaderMismatch ||
    error.code === McpErrorCode.MissingRequiredClientCapability ||
    error.code === McpErrorCode.UnsupportedProtocolVersion;
  return new McpError(modernOnly ? McpErrorCode.InvalidParams : error.code, error.message, error.data);
}
