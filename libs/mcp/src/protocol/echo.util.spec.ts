import { describe, expect, it } from 'vitest';
import { echoed, MAX_ECHO_LENGTH } from './echo.util.js';

describe('echoed', () => {
  it('keeps input up to the bound as it is', () => {
    const uri = `skill://${'a'.repeat(MAX_ECHO_LENGTH - 8)}`;
    expect(echoed(uri)).toBe(uri);
    expect(echoed('')).toBe('');
  });

  it('cuts longer input to the bound, says how long it was, and never splits a surrogate pair', () => {
    const long = 'x'.repeat(1024 * 1024);
    expect(echoed(long)).toBe(`${'x'.repeat(MAX_ECHO_LENGTH)}… (${long.length} characters)`);
    const emoji = `${'a'.repeat(MAX_ECHO_LENGTH - 1)}😀😀`;
    const cut = echoed(emoji);
    expect(cut.startsWith(`${'a'.repeat(MAX_ECHO_LENGTH - 1)}…`)).toBe(true);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
