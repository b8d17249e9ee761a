import type { IncomingMessage } from 'node:http';
import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import type { McpError } from '../../protocol/mcp.error.js';
import type { TelemetryRefusal } from '../../telemetry/telemetry-refusal.interface.js';
import type { CapturedBody } from './captured-body.interface.js';
import { MCP_RAW_BODY } from './raw-body.constants.js';

/**
 * What telemetry records of a POST the HTTP transport refused after its body was captured (`McpTelemetry
 * .recordRefusal`, ADR 0035): the request, the error as answered, when the capture took the request, and the
 * JSON-RPC message once the body was read as one (`implemented`: whether the wire has a route for its method).
 */
export function edgeRefusal(
  request: IncomingMessage,
  error: McpError,
  message?: JsonRpcRequest | JsonRpcNotification,
  implemented = false,
): TelemetryRefusal {
  const receivedAt = (request as IncomingMessage & { [MCP_RAW_BODY]?: CapturedBody })[MCP_RAW_BODY]?.receivedAt;
  return {
    incoming: request,
    error,
    receivedAt,
    ...(message && {
      request: {
        method: message.method,
        id: 'id' in message ? message.id : undefined,
        meta: message.params?._meta,
        implemented,
      },
    }),
  };
}
