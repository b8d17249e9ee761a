import { StringDecoder } from 'node:string_decoder';
import { sanitizeTerminalText } from './terminal-text.sanitizer.js';

/**
 * The end of a chunk that may be the start of something the sanitizer treats as a whole: a CRLF, or a colour code
 * (SGR). Bounded, so a sequence that never ends is not held forever.
 */
const INCOMPLETE_TAIL = /(?:\r|\x1b(?:\[[0-9;:]{0,32})?)$/;

/**
 * Sanitizes a byte stream from the server (a stdio server's stderr, shown with `--verbose`) chunk by chunk. Chunks
 * split anywhere: a UTF-8 character cut in two is held until it is whole, and so are a trailing `\r` (maybe half a
 * CRLF) and the start of a colour code (so that it is dropped whole, not shown half escaped). Escaping needs no other
 * state: any other control sequence split across chunks is inert either way.
 */
export class TerminalTextDecoder {
  private readonly utf8 = new StringDecoder('utf8');
  private pending = '';

  /** The safe text of one more chunk (possibly empty). */
  write(chunk: Buffer | string): string {
    return this.sanitize(typeof chunk === 'string' ? chunk : this.utf8.write(chunk), false);
  }

  /** The safe text of whatever was held back, at the end of the stream. */
  end(): string {
    return this.sanitize(this.utf8.end(), true);
  }

  private sanitize(decoded: string, last: boolean): string {
    let text = this.pending + decoded;
    this.pending = last ? '' : (INCOMPLETE_TAIL.exec(text)?.[0] ?? '');
    if (this.pending) text = text.slice(0, -this.pending.length);
    return sanitizeTerminalText(text);
  }
}
