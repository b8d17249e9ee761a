import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { ArgumentsHost, ExecutionContext } from '@nestjs/common';
import type { McpAccessToken } from '../protocol/access-token.interface.js';
import { MrtrContext } from './mrtr.context.js';

/** The context type Nest reports (`context.getType()`) for MCP handler calls. */
export const MCP_CONTEXT_TYPE = 'mcp';

/**
 * Gives guards, interceptors and filters the MCP view of a call, like `GqlExecutionContext` does for GraphQL.
 *
 * @example
 * ```ts
 * canActivate(context: ExecutionContext) {
 *   if (context.getType<string>() !== 'mcp') return true;
 *   const mcp = McpExecutionContext.create(context);
 *   return mcp.getHandlerName() !== 'delete_all' || mcp.getPrincipal() === 'root';
 * }
 * ```
 */
export class McpExecutionContext extends ExecutionContextHost {
  /** Wraps Nest's execution (or arguments) host of an MCP call. */
  static create(context: ExecutionContext | ArgumentsHost): McpExecutionContext {
    const type = context.getType();
    const mcpContext = new McpExecutionContext(
      context.getArgs(),
      (context as ExecutionContext).getClass?.(),
      (context as ExecutionContext).getHandler?.(),
    );
    mcpContext.setType(type);
    return mcpContext;
  }

  /** The tool arguments, prompt arguments or template variables of the call. */
  getInput<T = Record<string, unknown>>(): T {
    return this.getArgByIndex(2) as T;
  }

  /** The MCP context (`McpToolContext`, `McpPromptContext` or `McpResourceContext`). */
  getContext<T extends MrtrContext = MrtrContext>(): T {
    return this.getArgByIndex(3) as T;
  }

  /**
   * The underlying HTTP request, when the call came over HTTP; off HTTP the stand-in of the call (the testing kit's
   * request, a task round's `{ headers: {}, mcpTaskId }`, or `{ headers: {} }` on stdio).
   */
  getRequest<T = unknown>(): T {
    return this.getArgByIndex(0) as T;
  }

  /**
   * The authenticated caller (with `auth`: the verified token's principal, checked before any guard runs; otherwise
   * the `principal` option's), or undefined when anonymous.
   */
  getPrincipal(): string | undefined {
    return this.getContext()?.principal;
  }

  /**
   * The verified access token's content (scopes, claims, client id), when the call carried one. `@McpScopes` was
   * already satisfied when a guard sees it.
   */
  getAccessToken(): McpAccessToken | undefined {
    return this.getContext()?.accessToken;
  }

  /**
   * Who the call is counted and cached for, the same on every replica: `p:<principal>` for an authenticated caller;
   * otherwise `a:<address>` over HTTP (the framework's `request.ip`, so Express's `trust proxy` and Fastify's
   * `trustProxy` apply; an IPv6 address by its /64), `stdio` on stdio (the one client that owns the process),
   * `in-process` in the testing kit and `task` in a round of an anonymous task. `mcpThrottlerOptions` and
   * `McpCacheInterceptor` key on it.
   */
  getCallerKey(): string {
    return this.getContext().callerKey;
  }

  /** Name of the tool or prompt, or the resource URI (template), being served. */
  getHandlerName(): string {
    return this.getContext().handlerName();
  }
}
