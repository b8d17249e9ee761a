import { HttpException, type Logger } from '@nestjs/common';
import { McpError } from '../protocol/mcp.error.js';
import { wasNestLogged } from '../context/handler-errors.util.js';
import { McpToolError } from './mcp-tool.error.js';

/**
 * The text of a tool failure for an `isError` result, or the protocol error to answer instead.
 * `McpError` stays a protocol error; `McpToolError` and Nest's HTTP exceptions (guards, pipes) carry messages meant
 * for clients; anything else is logged and answered generically.
 */
export function toolFailure(error: unknown, logger: Logger, toolName: string): { text: string } | McpError {
  if (error instanceof McpError) return error;
  if (error instanceof McpToolError) return { text: error.message };
  if (error instanceof HttpException) return { text: httpExceptionMessage(error) };
  if (!wasNestLogged(error)) logger.error(`Tool "${toolName}" failed`, (error as Error)?.stack ?? String(error));
  return { text: `Tool "${toolName}" failed with an internal error` };
}

/**
 * The protocol error for a failure of a prompt, resource or completion handler: `McpError` as is, Nest's 4xx
 * exceptions as `-32602` with their message, anything else logged and answered as a generic `-32603`.
 */
export function protocolFailure(error: unknown, logger: Logger, what: string): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof HttpException && error.getStatus() < 500) {
    return McpError.invalidParams(httpExceptionMessage(error));
  }
  if (error instanceof McpToolError) return McpError.invalidParams(error.message);
  if (!wasNestLogged(error)) logger.error(`${what} failed`, (error as Error)?.stack ?? String(error));
  return McpError.internal();
}

function httpExceptionMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : error.message;
}
