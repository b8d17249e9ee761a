import { describe, expect, it } from 'vitest';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { CursorCodec } from './cursor.codec.js';
import { ListPager } from './list-pager.js';

interface Item {
  readonly definition: { name: string };
}

const items = (...names: string[]): readonly Item[] => names.map((name) => ({ definition: { name } }));

/** A pager of `tools` with a page size that can change between calls. */
function pagerOf(size = 2) {
  const settings = { size, projected: 0 };
  const pager = new ListPager<Item>(
    'tools',
    'tools',
    () => settings.size,
    (entry) => (settings.projected++, entry.definition),
  );
  return { pager, settings };
}

describe('ListPager', () => {
  it('cuts a list into pages linked by nextCursor; the last page has none', () => {
    const { pager } = pagerOf(2);
    const list = items('a', 'b', 'c', 'd', 'e');
    const first = pager.page(list, undefined);
    expect(first).toEqual({ tools: [{ name: 'a' }, { name: 'b' }], nextCursor: CursorCodec.encode('tools', 2) });
    const second = pager.page(list, first.nextCursor);
    expect(second.tools).toEqual([{ name: 'c' }, { name: 'd' }]);
    const last = pager.page(list, second.nextCursor);
    expect(last).toEqual({ tools: [{ name: 'e' }] });
  });

  it('answers an empty list with one empty page, and a list of exactly one page without a cursor', () => {
    const { pager } = pagerOf(2);
    expect(pager.page([], undefined)).toEqual({ tools: [] });
    expect(pager.page(items('a', 'b'), undefined)).toEqual({ tools: [{ name: 'a' }, { name: 'b' }] });
  });

  it('builds a page once and serves it again while the list is the same array', () => {
    const { pager, settings } = pagerOf(2);
    const list = items('a', 'b', 'c');
    const page = pager.page(list, undefined);
    expect(pager.page(list, undefined)).toBe(page);
    expect(settings.projected).toBe(2);
  });

  it('forgets its pages when the list changes (a new array), and reads the page size again then', () => {
    const { pager, settings } = pagerOf(2);
    pager.page(items('a', 'b', 'c'), undefined);
    settings.size = 1;
    const changed = items('a', 'b', 'c');
    expect(pager.page(changed, undefined)).toEqual({
      tools: [{ name: 'a' }],
      nextCursor: CursorCodec.encode('tools', 1),
    });
  });

  it('refuses a cursor at or past the end of the list with -32602 (e.g. one kept from before the list shrank)', () => {
    const { pager } = pagerOf(2);
    const cursor = pager.page(items('a', 'b', 'c'), undefined).nextCursor;
    expect(() => pager.page(items('a', 'b'), cursor)).toThrow(
      expect.objectContaining({ code: McpErrorCode.InvalidParams, message: 'Invalid params: invalid cursor' }),
    );
    expect(() => pager.page(items('a'), CursorCodec.encode('tools', 1))).toThrow('Invalid params: invalid cursor');
  });

  it("refuses another list's cursor and a tampered one", () => {
    const { pager } = pagerOf(2);
    const list = items('a', 'b', 'c');
    expect(() => pager.page(list, CursorCodec.encode('prompts', 2))).toThrow('Invalid params: invalid cursor');
    expect(() => pager.page(list, `${CursorCodec.encode('tools', 2)}x`)).toThrow('Invalid params: invalid cursor');
  });
});
