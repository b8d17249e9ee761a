import { HttpException, HttpStatus } from '@nestjs/common';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';

/** Seconds a refused caller is told to wait when the refusal itself did not say. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;
const RETRY_AFTER = /^retry-after(-.+)?$/i;

/** The statuses that refuse a call for load rather than answer it. */
const REFUSALS: ReadonlySet<number> = new Set([HttpStatus.TOO_MANY_REQUESTS, HttpStatus.SERVICE_UNAVAILABLE]);

/**
 * The protocol error for a 429 or 503 from a handler's pipeline — `@nestjs/throttler`'s `ThrottlerException`, a
 * throttler storage that cannot reach its store, or any `HttpException` with one of those statuses — or undefined for
 * any other error. A rate limit is a refusal of the call, never a tool result: the answer is `-32603` with the same
 * HTTP status and `data.retryAfterSeconds` (repeated as `Retry-After` on a JSON answer), like the library's own caps
 * (docs/http-transport.md). The seconds are the largest `Retry-After` or `Retry-After-<throttler>` header the refusing
 * enhancer set on argument 1 of the pipeline (the HTTP response, or the call's `McpLocalResponse`), else 1.
 */
export function pipelineRefusal(error: unknown, response: unknown): McpError | undefined {
  if (!(error instanceof HttpException) || !REFUSALS.has(error.getStatus())) return undefined;
  return new McpError(
    McpErrorCode.InternalError,
    error.message,
    { retryAfterSeconds: retryAfterOf(response) },
    error.getStatus(),
  );
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
