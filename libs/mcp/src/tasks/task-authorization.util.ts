import type { Logger } from '@nestjs/common';
import { McpToolContext } from '../context/mcp-tool.context.js';
import { pipelineRefusal } from '../context/pipeline-refusal.util.js';
import type { ToolEntry } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { toolFailure } from '../server/exception.mapper.js';

/**
 * Runs the guards of a task tool against the request that creates the task (both wires): its rounds run without
 * them (`authorizedAtCreation`). Resolves with the tool error result when one refuses (as a plain call answers it),
 * else `undefined`; a refusal that is a protocol error (a rate-limit guard's 429, an `McpError`) is thrown.
 */
export async function authorizeTaskCreation(
  scope: McpRequestScope,
  entry: ToolEntry,
  input: unknown,
  logger: Logger,
): Promise<JsonObject | undefined> {
  if (!entry.handler.authorize) return undefined;
  const name = entry.definition.name;
  const context = McpToolContext.open(scope, name);
  try {
    await entry.handler.authorize(input, context);
    return undefined;
  } catch (error) {
    // A rate-limit guard refusing the creating call refuses it as a plain call would be (the invoker does the same).
    const mapped = pipelineRefusal(error, context.httpResponse) ?? toolFailure(error, logger, name);
    if (mapped instanceof McpError) throw mapped;
    return { content: [{ type: 'text', text: mapped.text }], isError: true };
  } finally {
    context.complete();
  }
}
