import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeUnsafeJson, sanitizeTerminalText } from './terminal-text.sanitizer.js';

/** Anything a terminal would act on, after sanitizing (line feed and tab are layout, allowed in multiline text). */
const RAW_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const RAW_CONTROL_MULTILINE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('sanitizeTerminalText', () => {
  it('leaves ordinary Unicode text as it is', () => {
    const text = 'Grüße, 東京, ☕ 👩‍👩‍👧, עברית ועربي, e\u0301, a\u200db, tab\tand\nnew line, a\\x1b in plain text';
    expect(sanitizeTerminalText(text)).toBe(text);
  });

  it('shows every C0 control escaped, except the line feed and tab of multiline text, and DEL', () => {
    for (let code = 0; code < 0x20; code++) {
      const char = String.fromCharCode(code);
      const expected =
        char === '\n' || char === '\t' ? char : char === '\r' ? '\\r' : `\\x${code.toString(16).padStart(2, '0')}`;
      expect(sanitizeTerminalText(`a${char}b`)).toBe(`a${expected}b`);
    }
    expect(sanitizeTerminalText('a\x7fb')).toBe('a\\x7fb');
    expect(sanitizeTerminalText('bell\x07 backspace\x08 nul\x00')).toBe('bell\\x07 backspace\\x08 nul\\x00');
  });

  it('shows every 8-bit C1 control escaped, the single-byte CSI and OSC among them', () => {
    for (let code = 0x80; code < 0xa0; code++) {
      expect(sanitizeTerminalText(`a${String.fromCharCode(code)}b`)).toBe(`a\\x${code.toString(16)}b`);
    }
    expect(sanitizeTerminalText('\u009b2J\u009d52;c;AAAA\u009c')).toBe('\\x9b2J\\x9d52;c;AAAA\\x9c');
    // Latin-1 letters just above the C1 block are text.
    expect(sanitizeTerminalText('\u00a0\u00e9')).toBe('\u00a0\u00e9');
  });

  it.each([
    // Escape sequences: inert and visible.
    [
      'CSI cursor movement and screen clearing',
      '\x1b[2J\x1b[H\x1b[3A\x1b[10;20H',
      '\\x1b[2J\\x1b[H\\x1b[3A\\x1b[10;20H',
    ],
    ['OSC 52 clipboard write, BEL-terminated', '\x1b]52;c;cm0gLXJmIH4K\x07', '\\x1b]52;c;cm0gLXJmIH4K\\x07'],
    ['OSC 52, ST-terminated', '\x1b]52;c;aGk=\x1b\\', '\\x1b]52;c;aGk=\\x1b\\'],
    [
      'OSC 8 hyperlink showing another host',
      '\x1b]8;;https://evil.example/\x1b\\https://good.example/\x1b]8;;\x1b\\',
      '\\x1b]8;;https://evil.example/\\x1b\\https://good.example/\\x1b]8;;\\x1b\\',
    ],
    ['OSC 0 window title', '\x1b]0;pwned\x07', '\\x1b]0;pwned\\x07'],
    ['DCS', '\x1bP1$r0m\x1b\\', '\\x1bP1$r0m\\x1b\\'],
    ['APC, PM and SOS', '\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\', '\\x1b_apc\\x1b\\\\x1b^pm\\x1b\\\\x1bXsos\\x1b\\'],
    ['a two-character escape (RIS, full reset)', '\x1bc', '\\x1bc'],
    ['an OSC left open at the end', 'text \x1b]52;c;', 'text \\x1b]52;c;'],
    ['a lone ESC at the end', 'text\x1b', 'text\\x1b'],
    ['a private-mode CSI (alternate screen)', '\x1b[?1049h', '\\x1b[?1049h'],
    // A carriage return never overwrites a line; CRLF is a line end.
    ['a carriage return', 'all good\rALL BAD', 'all good\\rALL BAD'],
    ['CRLF, then a carriage return at the end', 'one\r\ntwo\r', 'one\ntwo\\r'],
    ['a carriage return before CRLF', 'one\r\r\ntwo', 'one\\r\ntwo'],
    // Colour codes (SGR) are dropped, but not an 8-bit CSI that looks like one.
    [
      'colour codes (SGR)',
      '\x1b[32mLOG\x1b[39m \x1b[1;38;5;208mwarn\x1b[0m \x1b[38:2::255:0:0mrgb\x1b[m',
      'LOG warn rgb',
    ],
    ['an 8-bit CSI that looks like a colour code', '\u009b31mred', '\\x9b31mred'],
    [
      'a colour code between the halves of a sequence (dropping it never joins them into a live one)',
      '\x1b\x1b[0m[2J',
      '\\x1b[2J',
    ],
  ])('shows %s safely', (_name, raw, shown) => {
    expect(sanitizeTerminalText(raw)).toBe(shown);
  });

  it('is safe on a sequence split over two writes: each half is inert on its own', () => {
    const [head, tail] = ['before \x1b]52;c;', 'cm0g\x07 after'];
    expect(sanitizeTerminalText(head) + sanitizeTerminalText(tail)).toBe('before \\x1b]52;c;cm0g\\x07 after');
    expect(sanitizeTerminalText('\x1b')).toBe('\\x1b');
    expect(sanitizeTerminalText('[2J')).toBe('[2J');
  });

  it('shows bidi embeddings, overrides and isolates escaped', () => {
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    for (const char of bidi) expect(sanitizeTerminalText(`a${char}b`)).toBe(`a\\u${char.charCodeAt(0).toString(16)}b`);
    expect(sanitizeTerminalText('invoice\u202efdp.exe')).toBe('invoice\\u202efdp.exe');
  });

  it('keeps single-line text on one line: line feeds and tabs become spaces', () => {
    expect(sanitizeTerminalText('a\nb\r\nc\td\re', { multiline: false })).toBe('a b c d\\re');
  });

  it('leaves no raw control character in any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(sanitizeTerminalText(text, { multiline: false })).not.toMatch(RAW_CONTROL);
        expect(sanitizeTerminalText(text)).not.toMatch(RAW_CONTROL_MULTILINE);
      }),
    );
    const alphabet = fc.constantFrom(
      '\x1b',
      '[',
      ']',
      '\r',
      '\n',
      '\x07',
      '\\',
      'm',
      '0',
      ';',
      '\u009b',
      '\u202e',
      'a',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }), (chars) => {
        expect(sanitizeTerminalText(chars.join(''))).not.toMatch(RAW_CONTROL_MULTILINE);
      }),
    );
  });
});

describe('escapeUnsafeJson', () => {
  it('escapes DEL, C1 and bidi characters that JSON.stringify leaves raw; the value is the same', () => {
    const value = { text: 'a\x1b]52;c;x\x07 \x7f \u009b2J \u202e \u2066 \u2028 ok é 東' };
    const json = escapeUnsafeJson(JSON.stringify(value));
    expect(json).toBe('{"text":"a\\u001b]52;c;x\\u0007 \\u007f \\u009b2J \\u202e \\u2066 \\u2028 ok é 東"}');
    expect(JSON.parse(json)).toEqual(value);
  });

  it('keeps any value exact and leaves no raw control character', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        for (const input of [value, { text }]) {
          const json = escapeUnsafeJson(JSON.stringify(input));
          expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
          expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(input)));
        }
      }),
    );
  });
});
