import { mcpHeaders, requestMeta, type RawPost } from './raw-request.util.js';
import { sleep } from './wait.util.js';
import { assertValidServerMessage } from './wire-schema.validator.js';

/**
 * Reads a long-lived SSE response (a `subscriptions/listen` stream) incrementally with the body reader, so a test
 * can wait for the next frame while the server keeps the stream open, and close it with an `AbortController`.
 * Every `data:` frame is parsed and checked against the official schema as it arrives; comment lines
 * (keep-alives) are counted.
 */

/** A JSON-RPC message as the server sent it. */
export interface WireMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  error?: { code: number; message: string; data?: unknown };
}

/**
 * An SSE response read as it arrives: every `data:` frame is parsed and handed to `validate` (which throws to
 * record a problem), comment lines (keep-alives) are counted, and the test can wait for frames and close the stream.
 * Shared by the 2026 listen streams (`OpenStream`) and the 2025 session streams (`LegacyStream`).
 */
export abstract class IncrementalSseReader<M extends object> {
  /** Every parsed `data:` frame so far, in order. */
  readonly messages: M[] = [];
  /** Schema or JSON problems found in frames (a test asserts this stays empty). */
  readonly problems: string[] = [];
  /** Comment lines (`:` …) seen so far: the keep-alives. */
  comments = 0;
  /** Everything received, as text. */
  raw = '';
  /** Whether the server ended the body (as opposed to the client aborting it). */
  endedByServer = false;
  /** Resolves when the body ended for any reason (server end, abort, reset). */
  readonly ended: Promise<void>;

  private buffer = '';

  constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    this.ended = this.pump();
  }

  /** Checks one parsed frame; throws to record a problem. */
  protected abstract validate(message: M): void;

  get status(): number {
    return this.response.status;
  }

  get headers(): Headers {
    return this.response.headers;
  }

  /** Waits until `count` frames arrived (default: one more than now). */
  async nextFrames(count: number, timeoutMs = 3_000): Promise<M[]> {
    await this.until(() => this.messages.length >= count, timeoutMs, `${count} frame(s)`);
    return this.messages.slice(0, count);
  }

  /** Waits for the first frame matching `predicate` and returns it. */
  async waitFor(predicate: (message: M) => boolean, what: string, timeoutMs = 3_000): Promise<M> {
    await this.until(() => this.messages.some(predicate), timeoutMs, what);
    return this.messages.find(predicate)!;
  }

  /** Waits until `condition` holds (polled every 5 ms). */
  async until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) {
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}; frames so far: ${JSON.stringify(this.messages)}`,
        );
      }
      await sleep(5);
    }
  }

  /** The client closes the stream. */
  close(): void {
    this.controller.abort();
  }

  private async pump(): Promise<void> {
    if (!this.response.body) return;
    const reader = this.response.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          this.endedByServer = true;
          break;
        }
        const text = decoder.decode(value, { stream: true });
        this.raw += text;
        this.buffer += text;
        this.drain();
      }
    } catch {
      // Aborted by the client or reset by the server: `endedByServer` stays false.
    }
  }

  /** Splits complete events off the buffer. */
  private drain(): void {
    for (;;) {
      const match = /\r\n\r\n|\n\n|\r\r/.exec(this.buffer);
      if (!match) break;
      const event = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const lines = event.split(/\r\n|\n|\r/);
      this.comments += lines.filter((line) => line.startsWith(':')).length;
      const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, ''));
      if (data.length === 0) continue;
      let message: M;
      try {
        message = JSON.parse(data.join('\n')) as M;
      } catch {
        this.problems.push(`frame is not JSON: ${data.join('\n')}`);
        continue;
      }
      try {
        this.validate(message);
      } catch (error) {
        this.problems.push((error as Error).message);
      }
      this.messages.push(message);
    }
  }
}

/** A 2026-07-28 POST whose answer is read as it streams; frames are checked against the official schema. */
export class OpenStream extends IncrementalSseReader<WireMessage> {
  constructor(
    response: Response,
    controller: AbortController,
    private readonly requestMethod: string,
  ) {
    super(response, controller);
  }

  protected validate(message: WireMessage): void {
    assertValidServerMessage(message, 'result' in message ? this.requestMethod : undefined);
  }
}

/**
 * POSTs a hand-made request (same defaults as `mcpPost`: headers mirroring the body, a `_meta` envelope) and
 * returns once the response headers arrived, with the body still being read.
 */
export async function openStream(url: URL, call: RawPost & { id: string | number }): Promise<OpenStream> {
  const params: Record<string, unknown> = { ...(call.params ?? {}) };
  if (call.meta !== false) params._meta = call.meta ?? requestMeta();
  const message = { jsonrpc: '2.0', id: call.id, method: call.method, params };
  const headers: Record<string, string> = mcpHeaders(call.method, call.params);
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: call.rawBody ?? JSON.stringify(message),
    signal: controller.signal,
  });
  return new OpenStream(response, controller, call.method);
}

/** Opens `subscriptions/listen` with a filter. */
export function listen(
  url: URL,
  id: string | number,
  notifications: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<OpenStream> {
  return openStream(url, { method: 'subscriptions/listen', id, params: { notifications }, meta });
}
