import type { IncomingHttpHeaders } from 'node:http';
import type { IncomingMessage } from '../../protocol/json-rpc-message.parser.js';
import { McpHeaders } from '../../protocol/meta-keys.constants.js';
import { isStatelessVersion } from '../../protocol/protocol-version.constants.js';
import { hasStatelessEnvelope } from '../../protocol/request-meta.parser.js';
import type { McpWireName } from '../../protocol/wire-name.js';

/**
 * Tells the 2026-07-28 wire from the 2025-11-25 one for a POST (docs/two-wires.md, "How a request is classified"; spec
 * 2026-07-28: basic/versioning, "Backward Compatibility with Initialization-Based Versions"), before any modern header
 * check: legacy clients send neither `Mcp-Method` nor `_meta`, and rejecting them for it would break every one of them.
 *
 * The body decides first: only modern clients put `io.modelcontextprotocol/protocolVersion` in `_meta`, so such a
 * request is modern whatever its header says (a wrong or missing header then gets the modern `-32020`/`-32022`);
 * this keeps an `initialize` sent with the modern envelope a modern `-32601`. Client responses are legacy. Otherwise
 * a modern version header makes a malformed modern request, and everything else is legacy.
 */
export function classifyWire(headers: IncomingHttpHeaders, incoming: IncomingMessage): McpWireName {
  if (incoming.kind === 'response') return 'legacy';
  if (hasStatelessEnvelope(incoming.message.params)) return 'modern';
  const version = headers[McpHeaders.protocolVersion];
  return isStatelessVersion(version) ? 'modern' : 'legacy';
}

/** GET and DELETE belong to a 2025-11-25 session when they name one and do not declare a modern version. */
export function isLegacySessionVerb(headers: IncomingHttpHeaders): boolean {
  const version = headers[McpHeaders.protocolVersion];
  if (isStatelessVersion(version)) return false;
  return typeof headers[McpHeaders.sessionId] === 'string';
}

/**
 * A GET that asks for the playground (docs/playground.md): a browser's navigation, whose Accept names `text/html`, and
 * no 2025-11-25 session's request (those ask for `text/event-stream` with their session id, and keep being served).
 */
export function isPlaygroundRequest(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept;
  if (typeof accept !== 'string' || isLegacySessionVerb(headers)) return false;
  return accept.split(',').some((part) => part.split(';', 1)[0].trim().toLowerCase() === 'text/html');
}
