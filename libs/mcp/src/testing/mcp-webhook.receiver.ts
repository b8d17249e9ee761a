import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One POST the receiver got, as it arrived. */
export interface McpWebhookRequest {
  /** The raw body, exactly as sent (what the signature covers). */
  readonly body: string;
  /** The body parsed (undefined when it is not JSON). */
  readonly json: any;
  readonly headers: IncomingHttpHeaders;
  /** The path and query it was POSTed to. */
  readonly path: string;
  /** Whether its Standard Webhooks signature verified with one of the receiver's secrets. */
  readonly verified: boolean;
  /** `verification`, `gap`, `terminated` (the body's `type`), or `event`. */
  readonly kind: 'event' | 'verification' | 'gap' | 'terminated';
  /** The status the receiver answered. */
  readonly status: number;
  readonly receivedAt: number;
}

/** A scripted answer to an event delivery: a status, maybe with headers (`Retry-After`, `Location`…). */
export type McpWebhookAnswer = number | { status: number; headers?: Record<string, string> };

/** Options of `McpWebhookReceiver.start`. */
export interface McpWebhookReceiverOptions {
  /** The secret deliveries are verified with. Default: 32 random bytes as `whsec_…`. */
  secret?: string;
  /** Path the receiver is served under (any path is accepted; `url` points here). Default `/hooks`. */
  path?: string;
  /** Answer verification challenges (by echoing them). Default true; false answers them 403. */
  answerChallenges?: boolean;
}

const DEFAULT_WAIT_MS = 5_000;

/**
 * A webhook endpoint for tests (`nest-mcp/testing`): a real HTTP server on `127.0.0.1` (port 0) that verifies every
 * POST's Standard Webhooks signature with the `standardwebhooks` library, answers the events extension's verification
 * challenge, records everything, and answers event deliveries as scripted (`respondWith`: 500 three times, then 200…;
 * 200 once the script is used up). A POST whose signature does not verify is answered 401. Point a subscription at it
 * with the server's development switch `events.webhooks.allowInsecureLoopback: true` (it serves plain HTTP on the
 * loopback address).
 *
 * @example
 * ```ts
 * const receiver = await McpWebhookReceiver.start();
 * await client.subscribeEvents('incident.opened', { severity: 'P1' }, { url: receiver.url, secret: receiver.secret });
 * await events.emit('incident.opened', incident);
 * const delivery = await receiver.nextEvent();
 * expect(delivery.json.data.severity).toBe('P1');
 * await receiver.close();
 * ```
 */
export class McpWebhookReceiver {
  /** Every POST received, in order. */
  readonly requests: McpWebhookRequest[] = [];
  private readonly secrets: string[];
  private readonly script: McpWebhookAnswer[] = [];
  private read = 0;
  private wake?: () => void;

  private constructor(
    private readonly server: Server,
    /** The URL to subscribe with. */
    readonly url: string,
    secret: string,
    private answerChallenges: boolean,
  ) {
    this.secrets = [secret];
  }

  /** Starts a receiver on 127.0.0.1 and a free port. */
  static async start(options: McpWebhookReceiverOptions = {}): Promise<McpWebhookReceiver> {
    const secret = options.secret ?? `whsec_${randomBytes(32).toString('base64')}`;
    let receiver!: McpWebhookReceiver;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () =>
        receiver.receive(request.url ?? '/', request.headers, Buffer.concat(chunks).toString('utf8'), response),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new McpWebhookReceiver(
      server,
      `http://127.0.0.1:${port}${options.path ?? '/hooks'}`,
      secret,
      options.answerChallenges ?? true,
    );
    return receiver;
  }

  /** The secret to subscribe with (the first one). */
  get secret(): string {
    return this.secrets[0];
  }

  /** Also accepts signatures made with `secret` (a rotation). */
  addSecret(secret: string): this {
    this.secrets.push(secret);
    return this;
  }

  /** Stops accepting `secret` (the end of a rotation). */
  removeSecret(secret: string): this {
    const index = this.secrets.indexOf(secret);
    if (index >= 0) this.secrets.splice(index, 1);
    return this;
  }

  /** Answers the next event deliveries as given, in order (then 200 again). */
  respondWith(...answers: McpWebhookAnswer[]): this {
    this.script.push(...answers);
    return this;
  }

  /** Whether verification challenges are answered. */
  challenges(answer: boolean): this {
    this.answerChallenges = answer;
    return this;
  }

  /** The event deliveries received so far (every attempt), in order. */
  get events(): McpWebhookRequest[] {
    return this.requests.filter((request) => request.kind === 'event');
  }

  /** The next POST not read yet (of `kind`, when given). Rejects after `timeoutMs`. */
  async next(kind?: McpWebhookRequest['kind'], timeoutMs = DEFAULT_WAIT_MS): Promise<McpWebhookRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.read < this.requests.length) {
        const request = this.requests[this.read++];
        if (kind === undefined || request.kind === kind) return request;
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `No ${kind ?? 'webhook'} POST within ${timeoutMs} ms (received ${this.requests.length} so far)`,
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

  /** The next event delivery the receiver acknowledged (2xx). */
  async nextEvent(timeoutMs = DEFAULT_WAIT_MS): Promise<McpWebhookRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const request = await this.next('event', Math.max(1, deadline - Date.now()));
      if (request.status >= 200 && request.status < 300) return request;
    }
  }

  /** Stops the server. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private receive(
    path: string,
    headers: IncomingHttpHeaders,
    body: string,
    response: import('node:http').ServerResponse,
  ): void {
    let json: any;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const type = typeof json?.type === 'string' ? json.type : undefined;
    const kind: McpWebhookRequest['kind'] =
      type === 'verification' || type === 'gap' || type === 'terminated' ? type : 'event';
    const verified = this.verifies(body, headers);
    let status = 200;
    let answerHeaders: Record<string, string> = {};
    let answerBody = '';
    if (!verified) status = 401;
    else if (kind === 'verification') {
      status = this.answerChallenges ? 200 : 403;
      if (this.answerChallenges) answerBody = JSON.stringify({ challenge: json.challenge });
    } else if (kind === 'event' && this.script.length > 0) {
      const answer = this.script.shift()!;
      status = typeof answer === 'number' ? answer : answer.status;
      answerHeaders = typeof answer === 'number' ? {} : (answer.headers ?? {});
    }
    this.requests.push({ body, json, headers, path, verified, kind, status, receivedAt: Date.now() });
    this.wake?.();
    response.writeHead(status, { ...answerHeaders, ...(answerBody && { 'content-type': 'application/json' }) });
    response.end(answerBody);
  }

  private verifies(body: string, headers: IncomingHttpHeaders): boolean {
    const signed = {
      'webhook-id': String(headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(headers['webhook-signature'] ?? ''),
    };
    return this.secrets.some((secret) => {
      try {
        new Webhook(secret).verify(body, signed);
        return true;
      } catch {
        return false;
      }
    });
  }
}
