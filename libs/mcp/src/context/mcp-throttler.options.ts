import type { ExecutionContext } from '@nestjs/common';
import { MCP_ENDPOINT_METADATA } from '../decorators/mcp-metadata.constants.js';
import { addressGroup } from '../protocol/admission-quota.js';
import { MCP_CONTEXT_TYPE } from './mcp-execution-context.js';
import { getMcpInvocationContext } from './mcp-invocation-context.js';
import type { MrtrContext } from './mrtr.context.js';

/** The shape of `@nestjs/throttler`'s `getTracker` and `skipIf` options, without depending on the package. */
export interface McpThrottlerOptions {
  /**
   * The key a call is counted under: on an MCP call the caller key (`McpExecutionContext.getCallerKey()`:
   * `p:<principal>`, else `a:<address>` over HTTP, `stdio`, `in-process`), also for a controller route called as a
   * tool; on any other request the request's `ip`
   * (an IPv6 address by its /64, as the throttler's own tracker groups it).
   */
  getTracker(request: Record<string, unknown>, context: ExecutionContext): string;
  /**
   * Skips the HTTP requests to the MCP endpoint itself (a global guard also runs on that route): the calls they carry
   * are counted one by one around their handlers, and `tools/list`, notifications, listen streams and 2025-11-25
   * session traffic are not calls. Also skips a task's rounds, which the creating call was already counted for.
   */
  skipIf(context: ExecutionContext): boolean;
}

/**
 * What `@nestjs/throttler` needs to count MCP calls per caller and per tool. Spread it into the module's options;
 * `@Throttle()` and `@SkipThrottle()` on tool, prompt and resource methods and their classes apply as on routes.
 *
 * @example
 * ```ts
 * ThrottlerModule.forRoot({ throttlers: [{ name: 'default', ttl: 60_000, limit: 100 }], ...mcpThrottlerOptions })
 * ```
 */
export const mcpThrottlerOptions: McpThrottlerOptions = Object.freeze({
  getTracker(request: Record<string, unknown>, context: ExecutionContext): string {
    if (context.getType<string>() === MCP_CONTEXT_TYPE) return (context.getArgByIndex(3) as MrtrContext).callerKey;
    // A controller route called as a tool: the MCP caller, as for any other tool.
    const invocation = getMcpInvocationContext(request);
    if (invocation) return invocation.callerKey;
    const ip = request.ip ?? (request.socket as { remoteAddress?: string } | undefined)?.remoteAddress;
    return typeof ip === 'string' ? addressGroup(ip) : 'unknown';
  },
  skipIf(context: ExecutionContext): boolean {
    if (context.getType<string>() === MCP_CONTEXT_TYPE)
      return (context.getArgByIndex(3) as MrtrContext).taskId !== undefined;
    return Reflect.getMetadata(MCP_ENDPOINT_METADATA, context.getClass()) !== undefined;
  },
});
