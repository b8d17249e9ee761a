import type { JsonRpcError } from './wire.types.js';

/** A JSON-RPC error the server answered (with its HTTP status). */
export class McpRpcError extends Error {
  constructor(
    readonly error: JsonRpcError,
    readonly httpStatus: number,
  ) {
    super(`${error.message} (${error.code})`);
  }
}

/**
 * The endpoint wants a (better) bearer token: 401, or 403 `insufficient_scope`. `resourceMetadata` is the Protected
 * Resource Metadata URL of the challenge (RFC 9728 §5.1), `scope` what the request needs.
 */
export class AuthRequiredError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly resourceMetadata: string | undefined,
    readonly scope: string | undefined,
    readonly bearerError: string | undefined,
    description: string,
  ) {
    super(description);
  }
}

/** The parameters of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3), by name. */
export function parseBearerChallenge(header: string | null): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (!header || !/^bearer\b/i.test(header)) return parameters;
  for (const match of header.slice(6).matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/gi)) {
    parameters[match[1].toLowerCase()] = match[2].replace(/\\(.)/g, '$1');
  }
  return parameters;
}
