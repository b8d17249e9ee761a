import { sanitizeTerminalText } from './terminal-text.sanitizer.js';

/** A link as the CLI shows it to a person. */
export interface LinkDisplay {
  /** What to print: the URL in its ASCII form, then what the person must know about it, e.g. `(host: evil.example)`. */
  text: string;
  /** An http(s) URL a person may open; `false` for any other scheme or something that is not a URL. */
  openable: boolean;
  /** The host (with its port) the link really goes to, in ASCII (punycode for an internationalized name). */
  host?: string;
}

/**
 * Shows a server-given link so that it cannot pass for another: its serialized (WHATWG) form, in which an
 * internationalized host is punycode (`аррӏе.com` → `xn--80ak6aa92e.com`) and everything outside printable ASCII
 * is percent-encoded, followed by the host it really opens, and a warning when a user name before `@` could pass
 * for the host. Only `http:` and `https:` links are openable; any other scheme (`javascript:`, `file:`, `data:`…)
 * is flagged.
 *
 * @example describeLink('https://good.example@evil.example/x').text
 * // 'https://good.example@evil.example/x (host: evil.example; "good.example@" is a user name, not the host)'
 */
export function describeLink(raw: string): LinkDisplay {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { text: `${sanitizeTerminalText(raw, { multiline: false })} (not a valid URL)`, openable: false };
  }
  // The serialized form is ASCII already; the sanitizer only guards against a parser that would let a control through.
  const href = sanitizeTerminalText(url.href, { multiline: false });
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      text: `${href} (not an http(s) link: ${sanitizeTerminalText(url.protocol, { multiline: false })})`,
      openable: false,
    };
  }
  const notes = [`host: ${url.host}`];
  if (url.username || url.password) {
    notes.push(
      `"${sanitizeTerminalText(url.username, { multiline: false })}${url.password ? ':…' : ''}@" is a user name, not the host`,
    );
  }
  return { text: `${href} (${notes.join('; ')})`, openable: true, host: url.host };
}
