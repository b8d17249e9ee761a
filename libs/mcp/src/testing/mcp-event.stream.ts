import type { McpTestingNotification } from './mcp-testing-notifications.interface.js';

const DEFAULT_WAIT_MS = 5_000;

/**
 * An open `events/stream` (the events extension's push mode). It is open when `client.streamEvents` resolves (the
 * server sent `notifications/events/active`); read frames with `next` or the delivered events with `nextEvent`, and
 * close it at the end of the test.
 *
 * @example
 * ```ts
 * const stream = await client.streamEvents('incident.opened', { severity: 'P1' });
 * await events.emit('incident.opened', incident);
 * expect((await stream.nextEvent()).data).toMatchObject({ severity: 'P1' });
 * await stream.close();
 * ```
 */
export class McpEventStream {
  /** Every frame received so far, `notifications/events/active` first. */
  readonly notifications: McpTestingNotification[] = [];
  private read = 0;
  private wake?: () => void;
  private ended = false;

  /** @internal A stream that `abort` closes and that has ended when `done` settles. */
  static open(abort: AbortController, done: Promise<unknown>): McpEventStream {
    return new McpEventStream(abort, done);
  }

  private constructor(
    private readonly abort: AbortController,
    private readonly done: Promise<unknown>,
  ) {
    const end = () => {
      this.ended = true;
      this.wake?.();
    };
    done.then(end, end);
  }

  /** The `notifications/events/active` params: where the stream started (`cursor`) and whether it was `truncated`. */
  get active(): { cursor: string | null; truncated: boolean } {
    const active = this.notifications.find((notification) => notification.method === 'notifications/events/active');
    return { cursor: (active?.params?.cursor ?? null) as string | null, truncated: active?.params?.truncated === true };
  }

  /** Whether the stream has ended (the server terminated it, or it was closed). */
  get closed(): boolean {
    return this.ended;
  }

  /** @internal Called by the client for every frame of the stream. */
  push(notification: McpTestingNotification): void {
    this.notifications.push(notification);
    this.wake?.();
  }

  /** The next frame not read yet (of `method`, when given; others are skipped). Rejects after `timeoutMs` or at the end. */
  async next(method?: string, timeoutMs = DEFAULT_WAIT_MS): Promise<McpTestingNotification> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.read < this.notifications.length) {
        const notification = this.notifications[this.read++];
        if (method === undefined || notification.method === method) return notification;
      }
      const left = deadline - Date.now();
      if (this.ended || left <= 0)
        throw new Error(
          `No ${method ?? 'frame'} on the events stream ${this.ended ? 'before it ended' : `within ${timeoutMs} ms`}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** The params of the next `notifications/events/event`: `{ eventId, name, timestamp, data, cursor }`. */
  async nextEvent(timeoutMs = DEFAULT_WAIT_MS): Promise<Record<string, any>> {
    return (await this.next('notifications/events/event', timeoutMs)).params ?? {};
  }

  /** Closes the stream (the client goes away) and waits until it is closed. */
  async close(): Promise<void> {
    this.abort.abort(new Error('The test closed the events stream'));
    await this.done.catch(() => undefined);
  }
}
