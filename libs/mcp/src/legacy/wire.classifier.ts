import type { IncomingMessage } from '../protocol/json-rpc-message.parser.js';
import { hasStatelessEnvelope } from '../protocol/request-meta.parser.js';
import type { McpWireName } from '../protocol/wire-name.js';

/**
 * Tells the wires apart on stdio (docs/stdio.md; spec 2026-07-28: basic/transports/stdio, "Backward Compatibility"),
 * one message at a time, since a dual-era process may serve both (spec 2026-07-28: basic/versioning,
 * "Backward Compatibility with Initialization-Based Versions"): client responses, `initialize` and
 * `notifications/initialized` are legacy; a request with the 2026 `_meta` envelope, and `server/discover` (the dual-era
 * clients' probe), are modern; anything else belongs to the process's 2025-11-25 session once `initialize` made one,
 * and is otherwise modern — where it fails for want of `_meta`, with an error that names the versions. HTTP reads
 * headers too: see `transport/http/wire.classifier.ts`.
 */
export function classifyStdioWire(incoming: IncomingMessage, hasSession: boolean): McpWireName {
  if (incoming.kind === 'response') return 'legacy';
  const { method, params } = incoming.message;
  if (method === 'initialize' || method === 'notifications/initialized') return 'legacy';
  if (hasStatelessEnvelope(params) || method === 'server/discover') return 'modern';
  return hasSession ? 'legacy' : 'modern';
}
