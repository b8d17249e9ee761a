import type { McpTestingNotification } from './mcp-testing-notifications.interface.js';

const DEFAULT_WAIT_MS = 5_000;

/** The filter of `subscriptions/listen` (`params.notifications`). */
export interface McpListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/**
 * An open `subscriptions/listen` stream. It is open (and acknowledged) when `client.listen` resolves; read change
 * notifications with `next`, and close it at the end of the test.
 *
 * @example
 * ```ts
 * const stream = await client.listen({ toolsListChanged: true });
 * flags.enable('cost-insights');
 * await stream.next('notifications/tools/list_changed');
 * await stream.close();
 * ```
 */
export class McpListenStream {
  /** Every notification received so far, the acknowledgement first. */
  readonly notifications: McpTestingNotification[] = [];
  private read = 0;
  private wake?: () => void;
  private ended = false;

  /** @internal A stream that `abort` closes and that has ended when `done` settles. */
  static open(abort: AbortController, done: Promise<unknown>): McpListenStream {
    return new McpListenStream(abort, done);
  }

  /** Streams are opened by `McpTestingClient.listen`. */
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

  /** What the server agreed to send: the part of the filter it honours. */
  get acknowledged(): McpListenFilter {
    const ack = this.notifications.find(
      (notification) => notification.method === 'notifications/subscriptions/acknowledged',
    );
    return (ack?.params?.notifications ?? {}) as McpListenFilter;
  }

  /** @internal Called by the client for every notification of the stream. */
  push(notification: McpTestingNotification): void {
    this.notifications.push(notification);
    this.wake?.();
  }

  /**
   * The next notification not read yet (of `method`, when given; others are skipped). Rejects after `timeoutMs` or
   * when the stream ended first.
   */
  async next(method?: string, timeoutMs = DEFAULT_WAIT_MS): Promise<McpTestingNotification> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.read < this.notifications.length) {
        const notification = this.notifications[this.read++];
        if (method === undefined || notification.method === method) return notification;
      }
      const left = deadline - Date.now();
      if (this.ended || left <= 0) {
        throw new Error(
          `No ${method ?? 'notification'} on the listen stream ${this.ended ? 'before it ended' : `within ${timeoutMs} ms`}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Closes the stream (the client goes away) and waits until it is closed. */
  async close(): Promise<void> {
    this.abort.abort(new Error('The test closed the listen stream'));
    await this.done.catch(() => undefined);
  }
}
