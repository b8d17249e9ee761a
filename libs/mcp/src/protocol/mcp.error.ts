import { IntrinsicException } from '@nestjs/common';
import { McpErrorCode } from './error-codes.enum.js';
import { echoed } from './echo.util.js';

/**
 * A protocol error (an `IntrinsicException`, so Nest's exception filters do not log it as a failure): becomes a JSON-RPC error response (never an `isError` tool result).
 *
 * Throw it from a handler when the request itself is wrong, e.g.
 * `throw McpError.invalidParams('Unknown region', { region })`.
 * The optional `httpStatus` is used when the error is answered before any streaming began.
 */
export class McpError extends IntrinsicException {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly httpStatus = 200,
  ) {
    super(message);
    this.name = 'McpError';
  }

  /** `-32700`: the body is not JSON (HTTP 400). */
  static parseError(message = 'Parse error: the body is not valid JSON'): McpError {
    return new McpError(McpErrorCode.ParseError, message, undefined, 400);
  }

  /** `-32600`: not a valid JSON-RPC request (HTTP 400). */
  static invalidRequest(message: string, data?: unknown): McpError {
    return new McpError(McpErrorCode.InvalidRequest, message, data, 400);
  }

  /** `-32601`: unknown method, or a method whose capability is not advertised (HTTP 404). The name is bounded. */
  static methodNotFound(method: string): McpError {
    return new McpError(McpErrorCode.MethodNotFound, `Method not found: ${echoed(method)}`, undefined, 404);
  }

  /** `-32602`: invalid params (HTTP 200 unless `httpStatus` is given). */
  static invalidParams(message: string, data?: unknown, httpStatus = 200): McpError {
    return new McpError(McpErrorCode.InvalidParams, message, data, httpStatus);
  }

  /**
   * `-32602` "Resource not found" with `data.uri`, as the spec requires; throw it from a template handler. A URI longer
   * than `MAX_URI_LENGTH` is cut there (`echoed`): an answer never repeats more of the client's input than that.
   */
  static resourceNotFound(uri: string): McpError {
    return new McpError(McpErrorCode.InvalidParams, 'Resource not found', { uri: echoed(uri) });
  }

  /** `-32603`: an unexpected server failure. The message is generic on purpose. */
  static internal(message = 'Internal error'): McpError {
    return new McpError(McpErrorCode.InternalError, message);
  }

  /** `-32020`: an MCP header is missing, malformed or disagrees with the body (HTTP 400). */
  static headerMismatch(message: string): McpError {
    return new McpError(McpErrorCode.HeaderMismatch, message, undefined, 400);
  }

  /** `-32021`: handling needs a client capability this request did not declare (HTTP 400). */
  static missingCapability(message: string, requiredCapabilities: Record<string, unknown>): McpError {
    return new McpError(McpErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities }, 400);
  }

  /** `-32022`: the requested protocol version is not supported (HTTP 400). */
  static unsupportedVersion(requested: string, supported: readonly string[]): McpError {
    return new McpError(
      McpErrorCode.UnsupportedProtocolVersion,
      'Unsupported protocol version',
      { supported: [...supported], requested: echoed(requested) },
      400,
    );
  }
}
