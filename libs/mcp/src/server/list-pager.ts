import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { CursorCodec } from './cursor.codec.js';

/**
 * Cuts a list into pages and keeps the pages it built until the list changes (lists are read far more often than
 * they change, so this keeps list requests off the hot path).
 */
export class ListPager<T> {
  private pages = new Map<number, JsonObject>();
  private source?: readonly unknown[];

  constructor(
    private readonly listName: string,
    private readonly field: string,
    private readonly pageSize: () => number,
    private readonly project: (entry: T) => unknown,
  ) {}

  /** The page that starts at `cursor` (or the first). A past-the-end offset is an invalid cursor too. */
  page(entries: readonly T[], cursor: unknown): JsonObject {
    if (this.source !== entries) {
      this.source = entries;
      this.pages = new Map();
    }
    const offset = CursorCodec.decode(this.listName, cursor);
    let page = this.pages.get(offset);
    if (!page) {
      page = this.cut(entries, offset);
      this.pages.set(offset, page);
    }
    return page;
  }

  /** The page that starts at `cursor`, built for this request only (a list that is not kept, e.g. filtered by a hook). */
  pageOnce(entries: readonly T[], cursor: unknown): JsonObject {
    return this.cut(entries, CursorCodec.decode(this.listName, cursor));
  }

  private cut(entries: readonly T[], offset: number): JsonObject {
    if (offset > 0 && offset >= entries.length) {
      throw McpError.invalidParams('Invalid params: invalid cursor');
    }
    const end = offset + this.pageSize();
    const page: JsonObject = { [this.field]: entries.slice(offset, end).map(this.project) };
    if (end < entries.length) page.nextCursor = CursorCodec.encode(this.listName, end);
    return page;
  }
}
