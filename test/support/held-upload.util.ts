import { type ClientRequest, request as httpRequest } from 'node:http';

/** The answer to a held upload, as far as it came. */
export interface HeldAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, if it parsed. */
  json: any;
}

/** A POST whose headers are sent at once and whose body the test sends (or withholds) by hand. */
export interface HeldUpload {
  /** Resolves with the answer once its body has arrived (it may come before any of the upload was sent). */
  readonly answer: Promise<HeldAnswer>;
  /**
   * Sends more of the body: `body` itself, or that many filler bytes; resolves when written, or when the server closed
   * the connection.
   */
  send(body: number | string): Promise<void>;
  /** Whether the server has answered yet. */
  readonly answered: boolean;
  destroy(): void;
}

/**
 * Starts a POST to `url` on its own connection that declares `Content-Length: declared` and sends only its headers
 * (`flushHeaders`): the body is sent later with `send`, or never. `headers` values that are arrays are sent as that
 * many header lines (two `Authorization` headers, say).
 */
export function holdUpload(url: URL, headers: Record<string, string | string[]>, declared: number): HeldUpload {
  let answered = false;
  const outgoing: ClientRequest = httpRequest(url, {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
      'content-length': String(declared),
    },
  });
  const answer = new Promise<HeldAnswer>((resolve, reject) => {
    outgoing.on('response', (incoming) => {
      answered = true;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers))
          if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: incoming.statusCode ?? 0, headers: responseHeaders, text, json });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
  });
  // Unhandled if the test never looks: a withheld upload that is never answered is the test's own failure to report.
  answer.catch(() => undefined);
  // A write to a connection the server has closed may never call back: the close ends every pending write.
  const closed = new Promise<boolean>((resolve) => outgoing.once('close', () => resolve(false)));
  outgoing.flushHeaders();
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return {
    answer,
    get answered() {
      return answered;
    },
    async send(body) {
      const write = (piece: Buffer | string) =>
        Promise.race([closed, new Promise<boolean>((resolve) => outgoing.write(piece, (error) => resolve(!error)))]);
      if (typeof body === 'string') {
        await write(body);
        return;
      }
      let left = body;
      while (left > 0 && !outgoing.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!(await write(piece))) return;
      }
    },
    destroy: () => outgoing.destroy(),
  };
}

/** Resolves with `promise`, or rejects with `what` after `ms`: a bounded wait with a clear failure. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
