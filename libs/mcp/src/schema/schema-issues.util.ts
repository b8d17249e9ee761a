import type { SchemaIssue } from './validation-outcome.interface.js';

/** Escapes one JSON Pointer reference token (RFC 6901 §3). */
function escapeToken(token: PropertyKey): string {
  const text = typeof token === 'symbol' ? (token.description ?? '') : String(token);
  return text.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Appends reference tokens to a JSON Pointer: `appendPointer('/items', 0, 'name')` → `/items/0/name`.
 *
 * @internal
 */
export function appendPointer(pointer: string, ...tokens: readonly PropertyKey[]): string {
  return tokens.reduce<string>((path, token) => `${path}/${escapeToken(token)}`, pointer);
}

/**
 * Renders issues as one readable line, e.g. `a: must be number; b: is required`.
 * Paths are shown without their leading `/`; an issue at the root shows only its message.
 */
export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues.map(({ path, message }) => (path ? `${path.slice(1)}: ${withoutLeadingName(path, message)}` : message)).join('; ');
}

/** class-validator messages already start with the property name (`quantity must be…`); keep it once. */
function withoutLeadingName(path: string, message: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name && message.startsWith(`${name} `) ? message.slice(name.length + 1) : message;
}
