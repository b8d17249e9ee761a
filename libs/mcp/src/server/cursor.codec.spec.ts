import { describe, expect, it } from 'vitest';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import { CursorCodec } from './cursor.codec.js';

const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** The error decoding `cursor` for `list` gets. */
function refusalOf(list: string, cursor: unknown): McpError {
  try {
    CursorCodec.decode(list, cursor);
  } catch (error) {
    return error as McpError;
  }
  throw new Error('the cursor was accepted');
}

describe('CursorCodec', () => {
  it('round-trips an offset for the list it was made for; no cursor is the first page', () => {
    const cursor = CursorCodec.encode('tools', 100);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(CursorCodec.decode('tools', cursor)).toBe(100);
    expect(CursorCodec.decode('tools', undefined)).toBe(0);
    expect(CursorCodec.decode('resources:v2', CursorCodec.encode('resources:v2', 7))).toBe(7);
  });

  it.each([
    ['a cursor of another list', CursorCodec.encode('prompts', 100)],
    ['a list name that only ends like this one', base64url('mytools:100')],
    ['an offset that is not a decimal integer', base64url('tools:1e3')],
    ['a negative offset', base64url('tools:-1')],
    ['an empty offset', base64url('tools:')],
    ['an offset of ten digits or more', base64url('tools:1000000000')],
    ['no separator', base64url('tools')],
    ['text that is not base64url', '%%%'],
    ['an empty string', ''],
    // Padding the decoder would skip: only the length refuses it.
    ['a cursor over 256 characters', `${CursorCodec.encode('tools', 1)}${'='.repeat(300)}`],
    ['a number', 100],
    ['null', null],
    ['an object', { offset: 100 }],
  ])('refuses %s with -32602 "invalid cursor" (HTTP 200)', (_label, cursor) => {
    const error = refusalOf('tools', cursor);
    expect(error).toBeInstanceOf(McpError);
    expect([error.code, error.message, error.httpStatus]).toEqual([
      McpErrorCode.InvalidParams,
      'Invalid params: invalid cursor',
      200,
    ]);
  });
});
