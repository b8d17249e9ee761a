import { describe, expect, it } from 'vitest';
import { describeLink } from './link-display.util.js';

describe('describeLink', () => {
  it('shows an http(s) link with the host it opens', () => {
    expect(describeLink('https://evil.example/path?q=1')).toEqual({
      text: 'https://evil.example/path?q=1 (host: evil.example)',
      openable: true,
      host: 'evil.example',
    });
    expect(describeLink('HTTP://Example.COM:8080/a')).toEqual({
      text: 'http://example.com:8080/a (host: example.com:8080)',
      openable: true,
      host: 'example.com:8080',
    });
    expect(describeLink('http://[::1]:3000/').host).toBe('[::1]:3000');
  });

  it('shows an internationalized host in punycode, so a look-alike cannot pass for the real one', () => {
    // Cyrillic "аррӏе.com", not apple.com.
    expect(describeLink('https://аррӏе.com/login')).toMatchObject({
      text: 'https://xn--80ak6aa92e.com/login (host: xn--80ak6aa92e.com)',
      host: 'xn--80ak6aa92e.com',
    });
  });

  it('says that a user name before @ is not the host', () => {
    expect(describeLink('https://good.example@evil.example/x').text).toBe(
      'https://good.example@evil.example/x (host: evil.example; "good.example@" is a user name, not the host)',
    );
    expect(describeLink('https://good.example:secret@evil.example/').text).toBe(
      'https://good.example:secret@evil.example/ (host: evil.example; "good.example:…@" is a user name, not the host)',
    );
  });

  it('never shows a control or bidi character of the URL raw', () => {
    const { text } = describeLink('https://good.example/\x1b]8;;https://evil.example/\x07\u202e\u009b/x');
    expect(text).toBe('https://good.example/%1B]8;;https://evil.example/%07%E2%80%AE%C2%9B/x (host: good.example)');
    // Tabs and line breaks are dropped by the URL parser; the host is what is left.
    expect(describeLink('https://evil.\nexample/').host).toBe('evil.example');
  });

  it.each([
    ['javascript:alert(document.cookie)', 'javascript:alert(document.cookie) (not an http(s) link: javascript:)'],
    ['file:///etc/passwd', 'file:///etc/passwd (not an http(s) link: file:)'],
    ['data:text/html,<script>x</script>', 'data:text/html,<script>x</script> (not an http(s) link: data:)'],
    ['vscode://extension/install', 'vscode://extension/install (not an http(s) link: vscode:)'],
  ])('flags a link that is not http(s): %s', (raw, text) => {
    expect(describeLink(raw)).toEqual({ text, openable: false });
  });

  it('flags something that is not a URL, escaped', () => {
    expect(describeLink('not a url \x1b[2J')).toEqual({
      text: 'not a url \\x1b[2J (not a valid URL)',
      openable: false,
    });
  });
});
