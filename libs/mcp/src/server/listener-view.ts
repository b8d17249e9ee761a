import type { McpListenerView } from '../protocol/listener-visibility.interface.js';

/** What a caller may know of a URI: served by a handler it may see, by one it may not, or by none. */
export type McpUriAccess = 'visible' | 'hidden' | 'unknown';

/** Most URIs one view remembers; past that it starts over (a stream follows at most 1000 URIs, events add children). */
const MAX_REMEMBERED = 1024;

/**
 * The `McpListenerView` of one caller: each URI is judged once (the lookup matches templates and may run the
 * `visibility` hook) and remembered until the registry changes (`revision` grows), so a remembered answer never
 * outlives the resources and templates it was read from.
 */
export class CallerListenerView implements McpListenerView {
  private readonly judged = new Map<string, McpUriAccess>();
  private judgedAt: number;

  constructor(
    private readonly judge: (uri: string) => McpUriAccess,
    private readonly revision: () => number,
  ) {
    this.judgedAt = revision();
  }

  follows(uri: string): boolean {
    return this.access(uri) === 'visible';
  }

  hears(uri: string): boolean {
    return this.access(uri) !== 'hidden';
  }

  private access(uri: string): McpUriAccess {
    const revision = this.revision();
    if (revision !== this.judgedAt) {
      this.judged.clear();
      this.judgedAt = revision;
    }
    let access = this.judged.get(uri);
    if (access === undefined) {
      access = this.judge(uri);
      if (this.judged.size >= MAX_REMEMBERED) this.judged.clear();
      this.judged.set(uri, access);
    }
    return access;
  }
}
