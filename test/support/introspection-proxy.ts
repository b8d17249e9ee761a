import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An RFC 7662 introspection endpoint on loopback that the test controls, in front of a real one (oidc-provider's):
 * it forwards each request as it came (the resource server's credentials included) and hands the answer back, unless
 * told to answer a token itself (`statusFor`), to drop `iss` from the answers, or to hold every answer until
 * `release()`. It counts what it was asked, by token.
 */
export interface IntrospectionProxy {
  /** The endpoint to configure as `auth.introspection.endpoint`. */
  readonly endpoint: string;
  /** Tokens answered with this status (and a JSON error body) instead of being forwarded. */
  readonly statusFor: Map<string, number>;
  /** Drop `iss` from forwarded answers. */
  stripIssuer: boolean;
  /** Hold every answer until `release()`. */
  hold: boolean;
  /** How many times `token` was asked about. */
  asked(token: string): number;
  /** How many requests arrived in all. */
  readonly total: number;
  /** How many answers are being held. */
  readonly held: number;
  /** Sends the held answers. */
  release(): void;
  close(): Promise<void>;
}

/** Starts the proxy in front of `target` (the real introspection endpoint). */
export async function startIntrospectionProxy(target: string): Promise<IntrospectionProxy> {
  const counts = new Map<string, number>();
  const held: Array<() => void> = [];
  let total = 0;
  const proxy = {
    statusFor: new Map<string, number>(),
    stripIssuer: false,
    hold: false,
  };

  const answer = async (request: IncomingMessage, response: ServerResponse, body: string) => {
    const token = new URLSearchParams(body).get('token') ?? '';
    counts.set(token, (counts.get(token) ?? 0) + 1);
    const status = proxy.statusFor.get(token);
    let send: () => void;
    if (status !== undefined) {
      send = () =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'slow_down' }));
    } else {
      const forwarded = await fetch(target, {
        method: 'POST',
        headers: {
          authorization: request.headers.authorization ?? '',
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body,
      });
      let text = await forwarded.text();
      if (proxy.stripIssuer && forwarded.ok) {
        const { iss: _dropped, ...rest } = JSON.parse(text) as Record<string, unknown>;
        text = JSON.stringify(rest);
      }
      send = () => response.writeHead(forwarded.status, { 'content-type': 'application/json' }).end(text);
    }
    if (proxy.hold) held.push(send);
    else send();
  };

  const server: Server = createServer((request, response) => {
    total++;
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      answer(request, response, body).catch(() => response.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    endpoint: `http://127.0.0.1:${port}/introspect`,
    statusFor: proxy.statusFor,
    get stripIssuer() {
      return proxy.stripIssuer;
    },
    set stripIssuer(value: boolean) {
      proxy.stripIssuer = value;
    },
    get hold() {
      return proxy.hold;
    },
    set hold(value: boolean) {
      proxy.hold = value;
    },
    asked: (token: string) => counts.get(token) ?? 0,
    get total() {
      return total;
    },
    get held() {
      return held.length;
    },
    release: () => {
      for (const send of held.splice(0)) send();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
