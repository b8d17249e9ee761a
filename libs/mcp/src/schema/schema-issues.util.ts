import type { SchemaIssue } from './validation-outcome.interface.js';

/**
 * Most issues a validator keeps for one value: enough for a model to correct its call, and a bound on what hostile
 * arguments (a million wrong array items) can make the server build and echo.
 */
export const MAX_SCHEMA_ISSUES = 10;

/** Most characters {@link formatIssues} and {@link formatKeys} return. */
export const MAX_ISSUES_TEXT = 2048;

/** Longest property name (or other path token) echoed in a message; the rest becomes `…`. */
const MAX_TOKEN_TEXT = 64;
/** Longest path and longest message of one issue. */
const MAX_PATH_TEXT = 256;
const MAX_MESSAGE_TEXT = 256;
/** Room kept for the `…and N more` suffix. */
const SUFFIX_ROOM = 32;

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
 * `text` cut to at most `max` characters, ending in `…` when cut (never in the middle of a surrogate pair).
 *
 * @internal
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * Joins `parts` with `separator` within `budget` characters; the parts left out (of `total`) are counted in a
 * closing `…and N more`.
 */
function joinWithin(parts: readonly string[], total: number, separator: string, budget: number): string {
  let text = '';
  let shown = 0;
  for (const part of parts) {
    const next = shown === 0 ? part : `${text}${separator}${part}`;
    const room = shown + 1 < total ? budget - SUFFIX_ROOM : budget;
    if (next.length > room) break;
    text = next;
    shown++;
  }
  if (shown === total) return text;
  const suffix = `…and ${total - shown} more`;
  return shown === 0 ? suffix : `${text}${separator}${suffix}`;
}

/**
 * The invalid outcome of a validator that reported `found`: the first {@link MAX_SCHEMA_ISSUES} mapped to issues,
 * the rest only counted (so a million reported failures cost a million nothing more).
 *
 * @internal
 */
export function keepIssues<F>(
  found: readonly F[],
  toIssue: (failure: F) => SchemaIssue,
): { valid: false; issues: SchemaIssue[]; omitted?: number } {
  const kept = found.length <= MAX_SCHEMA_ISSUES ? found : found.slice(0, MAX_SCHEMA_ISSUES);
  const issues = kept.map(toIssue);
  return found.length > kept.length
    ? { valid: false, issues, omitted: found.length - kept.length }
    : { valid: false, issues };
}

/** A path for display: without its leading `/`, long tokens and long paths cut. */
function displayPath(path: string): string {
  const tokens = path.slice(1).split('/');
  return truncateText(tokens.map((token) => truncateText(token, MAX_TOKEN_TEXT)).join('/'), MAX_PATH_TEXT);
}

/**
 * Renders issues as one readable line, e.g. `a: must be number; b: is required`, in at most `budget` characters
 * (default {@link MAX_ISSUES_TEXT}). Paths are shown without their leading `/`; an issue at the root shows only its
 * message. Long property names, paths and messages are cut with `…`; issues that do not fit, and the `omitted` ones
 * the validator found but did not keep, are counted in a closing `…and N more`.
 */
export function formatIssues(issues: readonly SchemaIssue[], omitted = 0, budget = MAX_ISSUES_TEXT): string {
  const parts = issues.map(({ path, message }) => {
    const text = truncateText(withoutLeadingName(path, message), MAX_MESSAGE_TEXT);
    return path ? `${displayPath(path)}: ${text}` : text;
  });
  return joinWithin(parts, issues.length + omitted, '; ', budget);
}

/**
 * Lists an object's own property names, e.g. `a, b, c`, cut like {@link formatIssues}: at most
 * {@link MAX_SCHEMA_ISSUES} names, each at most 64 characters, the rest counted in `…and N more`. Walks the keys
 * without copying them, so a hostile object with 300,000 keys costs no extra array.
 */
export function formatKeys(value: object, budget = MAX_ISSUES_TEXT): string {
  const shown: string[] = [];
  let total = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (shown.length < MAX_SCHEMA_ISSUES) shown.push(truncateText(key, MAX_TOKEN_TEXT));
    total++;
  }
  return joinWithin(shown, total, ', ', budget);
}

/** class-validator messages already start with the property name (`quantity must be…`); keep it once. */
function withoutLeadingName(path: string, message: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name && message.startsWith(`${name} `) ? message.slice(name.length + 1) : message;
}
