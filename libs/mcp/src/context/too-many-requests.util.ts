import { HttpException, HttpStatus } from '@nestjs/common';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';

/** Seconds a refused caller is told to wait when the refusal itself did not say. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;
const RETRY_AFTER = /^retry-after(-.+)?$/i;

/**
 * The protocol error for a 429 from a handler's pipeline — `@nestjs/throttler`'s `ThrottlerException`, or any
 * `HttpException` with status 429 — or undefined for any other error. A rate limit is a refusal of the call, never a
 * tool result: the answer is `-32603` with HTTP 429 and `data.retryAfterSeconds` (repeated as `Retry-After` on a JSON
 * answer), like the library's own caps (docs/http-transport.md). The seconds are the largest `Retry-After` or
 * `Retry-After-<throttler>` header the refusing enhancer set on argument 1 of the pipeline (the HTTP response, or the
 * call's `McpLocalResponse`), else 1.
 */
export function tooManyRequests(error: unknown, response: unknown): McpError | undefined {
  if (!(error instanceof HttpException) || error.getStatus() !== HttpStatus.TOO_MANY_REQUESTS) return undefined;
  return new McpError(McpErrorCode.InternalError, error.message, { retryAfterSeconds: retryAfterOf(response) }, HttpStatus.TOO_MANY_REQUESTS);
}

function retryAfterOf(response: unknown): number {
  const headers = (response as { getHeaders?: () => Record<string, unknown> } | undefined)?.getHeaders?.();
  let seconds: number | undefined;
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!RETRY_AFTER.test(name)) continue;
    const parsed = Number(Array.isArray(value) ? value[0] : value);
    if (Number.isFinite(parsed) && parsed >= 0) seconds = Math.max(seconds ?? 0, Math.ceil(parsed));
  }
  return seconds ?? DEFAULT_RETRY_AFTER_SECONDS;
}
