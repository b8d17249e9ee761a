import { OFFLINE_ACCESS_SCOPE } from './auth.constants.js';

/** The error codes of a Bearer challenge (RFC 6750 §3.1). */
export type McpBearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** What a `WWW-Authenticate: Bearer` challenge says. */
export interface McpBearerChallenge {
  /** The URL of this resource's Protected Resource Metadata (RFC 9728 §5.1 `resource_metadata`). */
  resourceMetadata: string;
  /** The scopes the request needs (`scope`); `offline_access` and values that are not scope tokens are left out. */
  scopes?: readonly string[];
  /** The error code; omitted for a request that sent no credentials (RFC 6750 §3.1). */
  error?: McpBearerErrorCode | string;
  /** A sentence for the developer (`error_description`); only sent with `error`. */
  errorDescription?: string;
}

/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** An error code (RFC 6750 §3): the same characters, plus space. */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;
/** What `error_description` may not contain (RFC 6750 §3: only %x20-21 / %x23-5B / %x5D-7E). */
const NOT_DESCRIPTION_CHARACTER = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;
/** Longest description sent: a sentence, not a document. */
const MAX_DESCRIPTION_LENGTH = 300;

/**
 * Builds a `WWW-Authenticate` value (RFC 6750 §3, RFC 9728 §5.1):
 * `Bearer resource_metadata="…"[, scope="…"][, error="…", error_description="…"]`. Every value is a quoted string;
 * the scope list never holds `offline_access` (MCP 2026-07-28, T-AUTH-10); the description is reduced to the
 * characters RFC 6750 allows (a `"` becomes `'`, a `\` becomes `/`, anything else outside printable ASCII a space),
 * so nothing can break out of the header.
 *
 * @example buildBearerChallenge({ resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
 *   error: 'insufficient_scope', scopes: ['files:write'], errorDescription: 'This tool needs files:write' })
 */
export function buildBearerChallenge(challenge: McpBearerChallenge): string {
  const parameters = [`resource_metadata=${quoted(challenge.resourceMetadata)}`];
  const scopes = [...new Set(challenge.scopes ?? [])].filter(
    (scope) => typeof scope === 'string' && SCOPE_TOKEN.test(scope) && scope !== OFFLINE_ACCESS_SCOPE,
  );
  if (scopes.length) parameters.push(`scope=${quoted(scopes.join(' '))}`);
  if (challenge.error !== undefined && ERROR_CODE.test(challenge.error)) {
    parameters.push(`error=${quoted(challenge.error)}`);
    if (challenge.errorDescription)
      parameters.push(`error_description=${quoted(sanitizeDescription(challenge.errorDescription))}`);
  }
  return `Bearer ${parameters.join(', ')}`;
}

/** A quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped, control and non-ASCII characters dropped. */
function quoted(value: string): string {
  const visible = value.replace(/[^\x20-\x7e]/g, '');
  return `"${visible.replace(/[\\"]/g, '\\$&')}"`;
}

function sanitizeDescription(description: string): string {
  const cleaned = description.replace(/"/g, "'").replace(/\\/g, '/').replace(NOT_DESCRIPTION_CHARACTER, ' ').trim();
  return cleaned.length > MAX_DESCRIPTION_LENGTH ? `${cleaned.slice(0, MAX_DESCRIPTION_LENGTH - 3)}...` : cleaned;
}
