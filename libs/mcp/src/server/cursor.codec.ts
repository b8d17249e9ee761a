import { McpError } from '../protocol/mcp.error.js';

/**
 * Opaque pagination cursors: the offset of the next page, tagged with the list it belongs to so that a cursor of
 * one list is rejected by another. Invalid cursors are `-32602`.
 */
export const CursorCodec = {
  encode(list: string, offset: number): string {
    return Buffer.from(`${list}:${offset}`, 'utf8').toString('base64url');
  },

  decode(list: string, cursor: unknown): number {
    if (cursor === undefined) return 0;
    if (typeof cursor !== 'string' || cursor.length > 256) {
      throw McpError.invalidParams('Invalid params: invalid cursor');
    }
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const separator = decoded.lastIndexOf(':');
    const offset = Number(decoded.slice(separator + 1));
    if (separator < 0 || decoded.slice(0, separator) !== list || !/^\d{1,9}$/.test(decoded.slice(separator + 1))) {
      throw McpError.invalidParams('Invalid params: invalid cursor');
    }
    return offset;
  },
};
