import { keptAppsExtension } from '../apps/apps-capability.util.js';
import { isJsonObject } from '../protocol/json-object.util.js';
import type { McpClientCapabilities, McpImplementation } from '../protocol/mcp-wire.interface.js';
import { canElicit } from '../mrtr/input-request.builders.js';
import { MAX_CLIENT_INFO_FIELD_LENGTH } from './legacy-session.constants.js';

/**
 * What a 2025-11-25 session keeps of the client's `initialize` capabilities: a fresh object with only what the server
 * reads (which elicitation modes, sampling with tools/context, roots with listChanged), never the client's objects —
 * a session lives for its idle lifetime, and whatever it references lives as long. Anything else the client declared
 * (`experimental`, `tasks`, unknown keys and extensions) is dropped, except the MCP Apps extension (`extensions`
 * `io.modelcontextprotocol/ui`, kept as `{ mimeTypes: ['text/html;profile=mcp-app'] }` when declared).
 *
 * @example
 * boundedCapabilities({ elicitation: {}, roots: { listChanged: true, x: 1 } }) // { elicitation: { form: {} }, roots: { listChanged: true } }
 */
export function boundedCapabilities(declared: Record<string, unknown>): McpClientCapabilities {
  const kept: McpClientCapabilities = {};
  const form = canElicit(declared, 'form');
  const url = canElicit(declared, 'url');
  // Explicit modes keep the meaning of `elicitation: {}` (form only) without keeping the client's object.
  if (form || url) kept.elicitation = { ...(form && { form: {} }), ...(url && { url: {} }) };
  const sampling = declared.sampling;
  if (isJsonObject(sampling)) {
    kept.sampling = {
      ...(isJsonObject(sampling.context) && { context: {} }),
      ...(isJsonObject(sampling.tools) && { tools: {} }),
    };
  }
  const roots = declared.roots;
  if (isJsonObject(roots)) kept.roots = roots.listChanged === true ? { listChanged: true } : {};
  // MCP Apps (declared per session on this wire): decides whether app-only tools are listed.
  const apps = keptAppsExtension(declared);
  if (apps) kept.extensions = { ...kept.extensions, ...apps };
  return kept;
}

/**
 * What a session keeps of `clientInfo` (display and logs only): `name`, `version` and `title`, each cut to
 * {@link MAX_CLIENT_INFO_FIELD_LENGTH} characters; undefined when `name` or `version` is not a string (both are
 * required by the 2025-11-25 schema).
 */
export function boundedClientInfo(declared: unknown): McpImplementation | undefined {
  if (!isJsonObject(declared) || typeof declared.name !== 'string' || typeof declared.version !== 'string')
    return undefined;
  const kept: McpImplementation = { name: bounded(declared.name), version: bounded(declared.version) };
  if (typeof declared.title === 'string') kept.title = bounded(declared.title);
  return kept;
}

/** The first characters of `text`, copied (a slice may share the longer string's memory), never half a surrogate pair. */
function bounded(text: string): string {
  if (text.length <= MAX_CLIENT_INFO_FIELD_LENGTH) return text;
  let end = MAX_CLIENT_INFO_FIELD_LENGTH;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return Buffer.from(text.slice(0, end), 'utf8').toString('utf8');
}
