import { MAX_URI_LENGTH } from './uri.util.js';

/**
 * Most characters of a client's own input an error message or `data` repeats back: a URI, a name, a method, a key.
 * As long as the longest URI the server considers (`MAX_URI_LENGTH`), so any input that could have been valid comes
 * back whole; a longer one cannot make an answer larger than the bound, whatever the request size limit.
 */
export const MAX_ECHO_LENGTH = MAX_URI_LENGTH;

/**
 * `text` as an error may repeat it: itself when it has at most {@link MAX_ECHO_LENGTH} characters, else its first
 * ones (never half of a surrogate pair) followed by `…` and the full length.
 *
 * @example `throw McpError.invalidParams(\`Unknown tool: ${echoed(name)}\`, { name: echoed(name) })`
 */
export function echoed(text: string): string {
  if (text.length <= MAX_ECHO_LENGTH) return text;
  let end = MAX_ECHO_LENGTH;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}
