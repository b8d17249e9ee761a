import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { McpWebhookFailure } from '../events-profile.constants.js';
import { isDeliverableAddress } from './address.policy.js';
import { hostOf } from './callback-url.util.js';

/** One POST to a callback. */
export interface WebhookPost {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Connect, TLS, request and answer, all of it. */
  readonly timeoutMs: number;
  /** Bytes of the answer read at most (the rest is dropped with the connection). */
  readonly maxResponseBytes: number;
  /** The development switch: 127.0.0.1 is deliverable. */
  readonly allowLoopback: boolean;
}

/** What came of a POST: an answer (any status: redirects are never followed), or a failure category. */
export type WebhookHttpOutcome =
  | { readonly kind: 'answered'; readonly status: number; readonly body: string; readonly retryAfterMs?: number }
  | {
      readonly kind: 'failed';
      readonly failure: Exclude<McpWebhookFailure, 'http_4xx' | 'http_5xx' | 'challenge_failed'>;
      readonly blocked?: true;
    };

/** The error a refused address fails a connection with. */
const BLOCKED = 'EMCPADDRESSBLOCKED';

const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/**
 * POSTs to a callback URL the way SEP-3415 asks ("SSRF prevention"): the hostname is resolved on this very connection
 * and every address it resolves to must be publicly routable (`isDeliverableAddress`), and the connection goes to that
 * checked address — Node's `lookup` hook, so the original name still goes in `Host` and TLS SNI. An IP-literal host
 * is checked before connecting (no lookup runs for it). No redirect is followed (`node:http` never does), a fresh
 * connection is made per POST, and the whole exchange is bounded in time and in bytes read.
 */
export function postWebhook(post: WebhookPost): Promise<WebhookHttpOutcome> {
  const host = hostOf(post.url);
  if (isIP(host) !== 0 && !isDeliverableAddress(host, post.allowLoopback)) {
    return Promise.resolve({ kind: 'failed', failure: 'connection_refused', blocked: true });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: WebhookHttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = (post.url.protocol === 'https:' ? httpsRequest : httpRequest)(post.url, {
      method: 'POST',
      headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
      agent: false,
      lookup: checkedLookup(post.allowLoopback),
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ kind: 'failed', failure: 'timeout' });
    }, post.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(failureOf(error)));
    request.on('response', (response) =>
      readAnswer(response, post.maxResponseBytes, finish, request.destroy.bind(request)),
    );
    request.end(post.body);
  });
}

/**
 * A `lookup` for `http(s).request` that resolves every address of the name and refuses them all if one is not
 * deliverable, then hands Node the checked addresses to connect to (all of them when Node asks for all: happy
 * eyeballs).
 */
function checkedLookup(allowLoopback: boolean) {
  // Typed loosely: Node's LookupFunction overloads differ between `all` and single answers.
  return (
    hostname: string,
    options: { family?: number | string; all?: boolean; hints?: number },
    callback: (...args: any[]) => void,
  ): void => {
    const family =
      options.family === 'IPv6'
        ? 6
        : options.family === 'IPv4'
          ? 4
          : typeof options.family === 'number'
            ? options.family
            : 0;
    dnsLookup(hostname, { all: true, family, hints: options.hints }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      if (addresses.length === 0 || addresses.some(({ address }) => !isDeliverableAddress(address, allowLoopback))) {
        const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to an address webhooks may not reach`);
        refused.code = BLOCKED;
        return callback(refused);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

function readAnswer(
  response: IncomingMessage,
  maxBytes: number,
  finish: (outcome: WebhookHttpOutcome) => void,
  destroy: () => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () =>
    finish({
      kind: 'answered',
      status: response.statusCode ?? 0,
      body: Buffer.concat(chunks).toString('utf8'),
      retryAfterMs: retryAfterOf(response.headers['retry-after']),
    });
  response.on('data', (chunk: Buffer) => {
    if (size >= maxBytes) return;
    chunks.push(chunk.subarray(0, maxBytes - size));
    size += chunk.length;
    if (size >= maxBytes) {
      done();
      destroy();
    }
  });
  response.on('end', done);
  response.on('error', done);
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or invalid. */
function retryAfterOf(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  if (/^\d{1,9}$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function failureOf(error: NodeJS.ErrnoException): WebhookHttpOutcome {
  const code = error.code ?? '';
  if (code === BLOCKED) return { kind: 'failed', failure: 'connection_refused', blocked: true };
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || TLS_CODES.has(code))
    return { kind: 'failed', failure: 'tls_error' };
  return { kind: 'failed', failure: 'connection_refused' };
}
