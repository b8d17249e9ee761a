import { describe, expect, it } from 'vitest';
import { TerminalTextDecoder } from './terminal-text.decoder.js';

/** Feeds the bytes of `text` cut at `cuts`, and returns what was written. */
function feed(text: string, cuts: number[]): string {
  const bytes = Buffer.from(text);
  const decoder = new TerminalTextDecoder();
  let out = '';
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    out += decoder.write(bytes.subarray(from, cut));
    from = cut;
  }
  return out + decoder.end();
}

describe('TerminalTextDecoder', () => {
  const text = 'Grüße ☕\r\n\x1b[32mLOG\x1b[0m \x1b]52;c;aGk=\x07 \u009b2J \u202e done\n';
  const expected = 'Grüße ☕\nLOG \\x1b]52;c;aGk=\\x07 \\x9b2J \\u202e done\n';

  it('gives the same safe text however the bytes are cut', () => {
    const length = Buffer.byteLength(text);
    for (let cut = 0; cut <= length; cut++) expect(feed(text, [cut])).toBe(expected);
    expect(
      feed(
        text,
        Array.from({ length }, (_, index) => index),
      ),
    ).toBe(expected);
  });

  it('gives back a held carriage return or escape at the end, escaped', () => {
    const decoder = new TerminalTextDecoder();
    expect(decoder.write('progress\r')).toBe('progress');
    // Not a CRLF after all: the carriage return is shown, the start of a colour code is held in turn.
    expect(decoder.write('\x1b[3')).toBe('\\r');
    expect(decoder.end()).toBe('\\x1b[3');
  });

  it('does not hold a sequence that never ends', () => {
    const decoder = new TerminalTextDecoder();
    expect(decoder.write(`\x1b[${'1'.repeat(40)}`)).toBe(`\\x1b[${'1'.repeat(40)}`);
  });
});
