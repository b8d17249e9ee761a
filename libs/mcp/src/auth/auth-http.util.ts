import { MAX_AUTH_RESPONSE_BYTES } from './auth.constants.js';

/** A JSON answer of the authorization server: its status and, when the body was a JSON object, that object. */
export interface AuthServerResponse {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

/** Why a request to the authorization server gave no usable answer (network, timeout, size); never names a token. */
export class AuthServerUnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthServerUnreachableError';
  }
}

/**
 * Sends one request to the authorization server and reads its JSON answer, bounded in time (`timeoutMs`, for the
 * whole exchange, body included) and in size (`maxBytes`). Redirects are not followed: metadata, keys and
 * introspection live at the URLs configured or published, and a redirect could lead a request carrying client
 * credentials elsewhere. Rejects with `AuthServerUnreachableError` when no answer could be read; a non-JSON body gives
 * `body: undefined`.
 */
export async function requestAuthServerJson(
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  limits: { timeoutMs: number; maxBytes?: number },
): Promise<AuthServerResponse> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { accept: 'application/json', ...init.headers },
      body: init.body,
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    throw new AuthServerUnreachableError(`${url}: ${describeFetchFailure(error, signal)}`, { cause: error });
  }
  const text = await readBounded(response, limits.maxBytes ?? MAX_AUTH_RESPONSE_BYTES).catch((error: unknown) => {
    throw new AuthServerUnreachableError(`${url}: ${describeFetchFailure(error, signal)}`, { cause: error });
  });
  return { status: response.status, body: parseObject(text) };
}

function describeFetchFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'no answer in time';
  if (error instanceof Error) {
    const cause = (error.cause as { code?: unknown } | undefined)?.code;
    return typeof cause === 'string' ? `${error.message} (${cause})` : error.message;
  }
  return String(error);
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`answer larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
