import type { IncomingHttpHeaders } from 'node:http';
import type { IncomingMessage } from '../protocol/json-rpc-message.parser.js';
import { McpHeaders } from '../protocol/meta-keys.constants.js';
import { STATELESS_PROTOCOL_VERSIONS } from '../protocol/protocol-version.constants.js';
import { hasStatelessEnvelope } from '../protocol/request-meta.parser.js';

/** Which wire a message belongs to. */
export type Wire = 'modern' | 'legacy';

const MODERN = new Set(STATELESS_PROTOCOL_VERSIONS);

/**
 * Tells the 2026-07-28 wire from the 2025-11-25 one for a POST (BACKCOMPAT §1.1), before any modern header check:
 * legacy clients send neither `Mcp-Method` nor `_meta`, and rejecting them for it would break every one of them.
 *
 * The body decides first: only modern clients put `io.modelcontextprotocol/protocolVersion` in `_meta`, so such a
 * request is modern whatever its header says (a wrong or missing header then gets the modern `-32020`/`-32022`);
 * this keeps an `initialize` sent with the modern envelope a modern `-32601`. Client responses are legacy. Otherwise
 * a modern version header makes a malformed modern request, and everything else is legacy.
 */
export function classifyWire(headers: IncomingHttpHeaders, incoming: IncomingMessage): Wire {
  if (incoming.kind === 'response') return 'legacy';
  if (hasStatelessEnvelope(incoming.message.params)) return 'modern';
  const version = headers[McpHeaders.protocolVersion];
  return typeof version === 'string' && MODERN.has(version) ? 'modern' : 'legacy';
}

/** GET and DELETE belong to a 2025-11-25 session when they name one and do not declare a modern version. */
export function isLegacySessionVerb(headers: IncomingHttpHeaders): boolean {
  const version = headers[McpHeaders.protocolVersion];
  if (typeof version === 'string' && MODERN.has(version)) return false;
  return typeof headers[McpHeaders.sessionId] === 'string';
}

/**
 * Tells the wires apart on stdio (BACKCOMPAT §1.2), one message at a time, since a dual-era process may serve both
 * (B-ERA-04): client responses, `initialize` and `notifications/initialized` are legacy; a request with the 2026
 * `_meta` envelope, and `server/discover` (the dual-era clients' probe), are modern; anything else belongs to the
 * process's 2025-11-25 session once `initialize` made one, and is otherwise modern — where it fails for want of
 * `_meta`, with an error that names the versions.
 */
export function classifyStdioWire(incoming: IncomingMessage, hasSession: boolean): Wire {
  if (incoming.kind === 'response') return 'legacy';
  const { method, params } = incoming.message;
  if (method === 'initialize' || method === 'notifications/initialized') return 'legacy';
  if (hasStatelessEnvelope(params) || method === 'server/discover') return 'modern';
  return hasSession ? 'legacy' : 'modern';
}
