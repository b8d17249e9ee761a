import { describe, expect, it } from 'vitest';
import { printResult } from './result.printer.js';

const HOSTILE = 'a\x1b]52;c;aGk=\x07 b\r\x1b[2J c\u009b31m d\u202e e';

function print(
  command: Parameters<typeof printResult>[0],
  result: Record<string, unknown>,
  forPeople: boolean,
): string {
  let written = '';
  printResult(command, result, { write: (chunk: string) => (written += chunk) }, forPeople);
  return written;
}

describe('printResult', () => {
  it("shows a result's text for people with every control character escaped and lines kept", () => {
    const out = print('call', { content: [{ type: 'text', text: `${HOSTILE}\nsecond line\r\n` }] }, true);
    expect(out).toBe('a\\x1b]52;c;aGk=\\x07 b\\r\\x1b[2J c\\x9b31m d\\u202e e\nsecond line\n\n');
  });

  it('shows the host an http(s) resource link opens, and other URIs as they are', () => {
    const out = print(
      'call',
      {
        content: [
          { type: 'resource_link', uri: 'https://good.example@аррӏе.com/x', name: 'docs\x1b[2J' },
          { type: 'resource_link', uri: 'file:///tmp/report.txt', name: 'report' },
        ],
      },
      true,
    );
    expect(out).toBe(
      '→ https://good.example@xn--80ak6aa92e.com/x (host: xn--80ak6aa92e.com; "good.example@" is a user name, not the host) (docs\\x1b[2J)\n→ file:///tmp/report.txt (report)\n',
    );
  });

  it('escapes tool names and descriptions, prompt text and resource contents', () => {
    expect(print('tools', { tools: [{ name: 'x\x1b[1A', description: `d ${HOSTILE}` }] }, true)).toBe(
      'x\\x1b[1A  d a\\x1b]52;c;aGk=\\x07 b\\r\\x1b[2J c\\x9b31m d\\u202e e\n',
    );
    expect(
      print(
        'prompt',
        { description: '\x1b]0;title\x07', messages: [{ role: 'user', content: { type: 'text', text: HOSTILE } }] },
        true,
      ),
    ).toContain('# \\x1b]0;title\\x07\nuser: a\\x1b]52');
    expect(print('read', { contents: [{ uri: 'x://y', text: HOSTILE }] }, true)).toBe(
      'a\\x1b]52;c;aGk=\\x07 b\\r\\x1b[2J c\\x9b31m d\\u202e e\n',
    );
  });

  it('writes JSON for programs with the exact value and no raw control character', () => {
    const result = { content: [{ type: 'text', text: HOSTILE }] };
    const out = print('call', result, false);
    expect(out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(JSON.parse(out)).toEqual(result);
  });
});
