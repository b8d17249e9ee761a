import { SKILL_SCHEME } from './skills.constants.js';

/** Characters a segment may not hold (control characters, `\`), and the segments that would climb or stay put. */
const FORBIDDEN = /[\u0000-\u001f\u007f\\]/;
const DOT_SEGMENTS = new Set(['.', '..']);

/** An RFC 3986 `reg-name` (unreserved, sub-delims, percent-encoded octets): what the first skill-path segment SHOULD be. */
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;

/**
 * The problem with a `/`-separated relative path (a skill path, or a file path below a skill root), or `undefined`:
 * no empty, `.` or `..` segment, no leading or trailing `/`, no control character or backslash.
 */
export function pathProblem(path: string): string | undefined {
  if (typeof path !== 'string' || path.length === 0) return 'is empty';
  for (const segment of path.split('/')) {
    if (segment.length === 0) return 'has an empty segment (a leading, trailing or doubled "/")';
    if (DOT_SEGMENTS.has(segment)) return `has a "${segment}" segment`;
    if (FORBIDDEN.test(segment)) return 'holds a control character or a backslash';
  }
  return undefined;
}

/** Whether the first segment of a skill path is a valid URI authority (`reg-name`) once encoded (a SHOULD). */
export function isRegName(skillPath: string): boolean {
  return REG_NAME.test(encodeSegment(skillPath.split('/')[0], true));
}

/**
 * The `skill://` URI of a skill path, or of a file below it: `skill://<skill-path>` (the skill's root directory, no
 * trailing slash), `skill://<skill-path>/<file-path>`. Segments are percent-encoded where a URI needs it.
 */
export function skillUri(skillPath: string, filePath?: string): string {
  const [authority, ...rest] = skillPath.split('/');
  const segments = [encodeSegment(authority, true), ...rest.map((segment) => encodeSegment(segment, false))];
  if (filePath !== undefined) segments.push(...filePath.split('/').map((segment) => encodeSegment(segment, false)));
  return `${SKILL_SCHEME}://${segments.join('/')}`;
}

/** The last segment of a `/`-separated path. */
export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Percent-encodes what a path segment (or, with `authority`, a `reg-name`) may not hold: `encodeURIComponent`, with
 * the sub-delimiters (and in a path `:` and `@`) left as they are, as RFC 3986 allows.
 */
function encodeSegment(segment: string, authority: boolean): string {
  const kept = authority ? /%(24|26|2B|2C|3B|3D)/g : /%(24|26|2B|2C|3B|3D|3A|40)/g;
  return encodeURIComponent(segment).replace(kept, (sequence) => decodeURIComponent(sequence));
}
