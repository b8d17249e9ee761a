import { isJsonObject } from '../protocol/json-object.util.js';
import type { McpClientCapabilities } from '../protocol/mcp-wire.interface.js';
import { canElicit } from './input-request.builders.js';

/** What a handler can ask a client for: the four kinds of input request (`McpInput.form`, `.url`, `.sampling`, `.roots`). */
export type McpInputKind = 'form' | 'url' | 'sampling' | 'roots';

const KINDS: ReadonlySet<string> = new Set<McpInputKind>(['form', 'url', 'sampling', 'roots']);

/**
 * Whether `capabilities` let a client answer input of `kind`: `elicitation` (form mode, also `elicitation: {}`) or
 * `elicitation.url`, `sampling`, `roots`. An unknown kind is a `TypeError`.
 */
export function supportsInputKind(capabilities: McpClientCapabilities, kind: McpInputKind): boolean {
  if (!KINDS.has(kind))
    throw new TypeError(
      `Unknown input kind "${String(kind)}"; expected one of ${[...KINDS].join(', ')}, or an McpInput request`,
    );
  if (kind === 'form' || kind === 'url') return canElicit(capabilities, kind);
  return isJsonObject(capabilities[kind]);
}
