import { expect } from 'vitest';
import { mcpPost, requestMeta, type RawResponse } from './raw-request.util.js';

/**
 * Hand-made requests of the events extension (SEP-3415) and checks of their answers: every result carries
 * `resultType: "complete"` (E-5), every error is a JSON-RPC error with the expected code and HTTP status.
 */

/** The SEP-3415 codes (the default profile) and the design sketch's (`events.profile: 'openai'`). */
export const SEP_CODES = {
  NotFound: -32023,
  Forbidden: -32024,
  ResourceExhausted: -32025,
  Unsupported: -32026,
  CallbackEndpointError: -32027,
} as const;
export const OPENAI_CODES = {
  NotFound: -32011,
  Forbidden: -32012,
  ResourceExhausted: -32013,
  Unsupported: -32014,
  CallbackEndpointError: -32015,
} as const;

export const EVENTS = 'io.modelcontextprotocol/events';
export const SUB = 'io.modelcontextprotocol/subscriptionId';

/** One events request over HTTP; `principal` goes in `x-principal`, which the fixture reads as the caller. */
export async function eventsPost(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  principal?: string,
): Promise<RawResponse> {
  return mcpPost(url, {
    method,
    params,
    meta: requestMeta(),
    headers: principal === undefined ? {} : { 'x-principal': principal },
  });
}

/** The result of a successful answer (HTTP 200, JSON, `resultType: "complete"`). */
export function resultOf(response: RawResponse): Record<string, any> {
  expect(response.status, response.text).toBe(200);
  const body = response.json as { result?: Record<string, any>; error?: unknown };
  expect(body.error, response.text).toBeUndefined();
  expect(body.result!.resultType).toBe('complete');
  return body.result!;
}

/** The error of a refused request, checked: its HTTP status and JSON-RPC code. */
export function errorOf(
  response: RawResponse,
  code: number,
  status = 200,
): { code: number; message: string; data?: any } {
  expect(response.status, response.text).toBe(status);
  const body = response.json as { error?: { code: number; message: string; data?: unknown } };
  expect(body.error, response.text).toBeDefined();
  expect(body.error!.code, response.text).toBe(code);
  return body.error as { code: number; message: string; data?: any };
}

/** Base64 of `bytes` random bytes, as a `whsec_` secret. */
export function secretOf(bytes = 32): string {
  return `whsec_${Buffer.from(Array.from({ length: bytes }, (_, index) => (index * 37 + 11) % 256)).toString('base64')}`;
}
