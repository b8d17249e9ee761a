import { isIP } from 'node:net';
import { McpError } from '../../protocol/mcp.error.js';
import { DEVELOPMENT_LOOPBACK, isDeliverableAddress } from './address.policy.js';

/** Longest callback URL accepted. */
const MAX_URL_LENGTH = 2048;

const invalidUrl = (problem: string) => McpError.invalidParams(`Invalid params: delivery.url ${problem}`);

/**
 * Checks `delivery.url` of `events/subscribe` (SEP-3415, "TLS requirement" and "SSRF prevention"): an absolute
 * `https://` URL without userinfo or fragment, whose host, when it is an IP literal, is publicly routable. With the
 * development switch, `http://127.0.0.1[:port]/…` too, and nothing else plain-HTTP. The URL string itself is the
 * subscription's identity: it is kept byte for byte, never normalized (the query included). A hostname is checked
 * again, resolved, on every connection (`postWebhook`).
 */
export function parseCallbackUrl(value: unknown, allowInsecureLoopback: boolean): URL {
  if (typeof value !== 'string' || value.length === 0) throw invalidUrl('must be a non-empty string');
  if (value.length > MAX_URL_LENGTH) throw invalidUrl(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidUrl('must be an absolute URL');
  }
  const host = hostOf(url);
  const loopbackHttp = allowInsecureLoopback && url.protocol === 'http:' && host === DEVELOPMENT_LOOPBACK;
  if (url.protocol !== 'https:' && !loopbackHttp) throw invalidUrl('must be an https:// URL');
  if (url.username !== '' || url.password !== '') throw invalidUrl('must not carry credentials (user:password@)');
  if (value.includes('#')) throw invalidUrl('must not have a fragment');
  if (isIP(host) !== 0 && !isDeliverableAddress(host, allowInsecureLoopback)) {
    throw invalidUrl('points to an address that is not publicly routable (loopback, private, link-local, reserved…)');
  }
  return url;
}

/** The host of a URL without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
