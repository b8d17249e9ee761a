import { McpParamType } from '../decorators/mcp-param-type.enum.js';
import type { MrtrContext } from './mrtr.context.js';

/**
 * Picks a handler parameter's value from the call's arguments, which are always
 * `[httpRequest, httpResponse, input, context]` (the HTTP pair first, so HTTP guards keep working).
 */
export class McpParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    switch (type as McpParamType) {
      case McpParamType.ARGS: {
        const input = args[2] as Record<string, unknown> | undefined;
        return typeof data === 'string' ? input?.[data] : input;
      }
      case McpParamType.CONTEXT:
        return args[3];
      case McpParamType.REQUEST:
        return args[0];
      case McpParamType.PRINCIPAL:
        return (args[3] as MrtrContext | undefined)?.principal;
      case McpParamType.ACCESS_TOKEN:
        return (args[3] as MrtrContext | undefined)?.accessToken;
      default:
        return undefined;
    }
  }
}
