/**
 * Server text on its way to a terminal. A server controls the progress messages, elicitation forms, results and
 * error messages the CLI prints; raw, they could write the clipboard (OSC 52), show a link to one host that opens
 * another (OSC 8), move the cursor or clear the screen (CSI), overwrite a line (`\r`), or reorder what the user
 * reads (bidi overrides). Every such character is shown escaped instead, so the user sees that something was there.
 */

/**
 * What is matched, in order: a colour/style sequence (SGR, `ESC [ … m`; removed: it only colours text, and servers'
 * loggers emit it all the time), a CRLF line end, and any single C0 control, DEL, C1 control (U+0080–U+009F: the
 * 8-bit CSI U+009B and OSC U+009D among them) or bidi embedding/override/isolate character. An escape sequence is
 * made inert by escaping its introducer: what follows is printable text, so a sequence cut in two or left open is
 * no more harmful than a whole one.
 */
const TERMINAL_UNSAFE = /\x1b\[[0-9;:]*m|\r\n|[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** The characters `JSON.stringify` leaves raw in a string but a terminal still acts on (it escapes C0 itself). */
const JSON_UNSAFE = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const NAMED: Record<string, string> = { '\r': '\\r', '\n': '\\n', '\t': '\\t' };

/** How a text is laid out where it is printed. */
export interface TerminalTextOptions {
  /**
   * `true` (default): keep line feeds and tabs, and turn CRLF into a line feed. `false`: the text must stay on one
   * line (a progress bar, a prompt, an error line): line feeds, CRLF and tabs become a space.
   */
  multiline?: boolean;
}

/**
 * Makes server-controlled text safe to write to a terminal: every control character (C0 except the line feed and tab
 * a layout needs, a lone `\r`, DEL, C1) and every bidi override or isolate is shown as a visible escape (`\x1b`,
 * `\r`, `\x9b`, `\u202e`); colour codes (SGR) are dropped. Everything else, all ordinary Unicode text included, is
 * left as it is.
 *
 * @example sanitizeTerminalText('\x1b]52;c;aGk=\x07done') // '\\x1b]52;c;aGk=\\x07done'
 */
export function sanitizeTerminalText(text: string, options: TerminalTextOptions = {}): string {
  const multiline = options.multiline ?? true;
  return text.replace(TERMINAL_UNSAFE, (match) => {
    if (match.length > 1) {
      if (match !== '\r\n') return '';
      return multiline ? '\n' : ' ';
    }
    if (match === '\n' || match === '\t') return multiline ? match : ' ';
    return NAMED[match] ?? escapeCodePoint(match);
  });
}

/**
 * Escapes, in JSON text, the characters that are valid raw inside a JSON string but act on a terminal: DEL, C1
 * controls and bidi overrides (plus U+2028/U+2029, which break JavaScript embeddings). The JSON means the same; only
 * its spelling changes (`"\u009b"` for a raw U+009B). Outside strings JSON has only ASCII, so no structure changes.
 *
 * @example escapeUnsafeJson(JSON.stringify({ text: 'a\u202eb' })) // '{"text":"a\\u202eb"}'
 */
export function escapeUnsafeJson(json: string): string {
  return json.replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `\x1b`, `\x9b` for a code point below U+0100, `\u202e` above. */
function escapeCodePoint(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
