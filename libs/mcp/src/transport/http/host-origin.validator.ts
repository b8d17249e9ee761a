import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import { McpErrorCode } from '../../protocol/error-codes.enum.js';
import { McpError } from '../../protocol/mcp.error.js';
import {
  describeHostOriginPolicy,
  DUPLICATE_HOST,
  HOST_MISSING_OR_MALFORMED,
  HOST_NOT_IP_OR_LOCALHOST,
  HOST_NOT_LISTED,
  HOST_NOT_LOOPBACK,
  ORIGIN_NOT_ALLOWED,
  ORIGIN_NOT_LISTED,
} from './host-origin.messages.js';
import { rawHeaderCount } from './raw-headers.util.js';

/** Host names accepted on a loopback connection when no `allowedHosts` is set. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const PORT = /^:\d{1,5}$/;

/** Whether an address (as Node reports it) is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * `Example.com:8080` → `example.com`, `[::1]:3000` → `[::1]`; undefined for an empty name or anything after the name
 * that is not `:port`.
 */
function hostnameOf(host: string): string | undefined {
  const lower = host.trim().toLowerCase();
  let end: number;
  if (lower.startsWith('[')) {
    end = lower.indexOf(']') + 1;
    if (end === 0) return undefined;
  } else {
    end = lower.indexOf(':');
    if (end < 0) end = lower.length;
  }
  if (end === 0 || (end < lower.length && !PORT.test(lower.slice(end)))) return undefined;
  return lower.slice(0, end);
}

/**
 * A dotted-quad IPv4 address or a bracketed IPv6 address. Node's `isIPv4` takes only the four-part decimal form, so
 * `127.1` or `0x7f.0.0.1` (which resolvers read differently) are names here, and names need `allowedHosts`.
 */
function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') ? hostname.endsWith(']') && isIPv6(hostname.slice(1, -1)) : isIPv4(hostname);
}

/** `localhost`, 127.0.0.0/8 or `[::1]`, as the URL parser writes them (it already turned `127.1` into `127.0.0.1`). */
function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || (hostname.startsWith('127.') && isIPv4(hostname));
}

const forbidden = (message: string) => new McpError(McpErrorCode.InvalidRequest, message, undefined, 403);

/**
 * DNS-rebinding protection (spec 2026-07-28: basic/transports/streamable-http, "Security & Endpoint", and the
 * conformance suite's `dns-rebinding-protection`). Fails closed:
 *
 * - `Host`: with `allowedHosts`, only those; without, `localhost`, `127.0.0.1` or `[::1]` on a loopback connection,
 *   and `localhost` or an IP address on any other (a server on 0.0.0.0 in a container). A DNS name needs
 *   `allowedHosts`: a rebinding page reaches the server under the attacker's name, never under an IP address.
 * - `Origin`, when a browser sends one: with `allowedOrigins`, only those; without, a loopback origin, or the very IP
 *   address and port of `Host`.
 * - Several `Host` headers: 400 (RFC 9112).
 */
export class HostOriginValidator {
  /** The last Host and connection kind seen, and their verdict: clients send the same Host on every request. */
  private lastHost?: string;
  private lastLoopback = false;
  private lastVerdict?: McpError;

  constructor(
    private readonly allowedHosts?: ReadonlySet<string>,
    private readonly allowedOrigins?: ReadonlySet<string>,
  ) {}

  /** Returns the error to answer (400 or 403, `-32600`), or undefined when the request may proceed. */
  check(request: IncomingMessage): McpError | undefined {
    // Node keeps the first of several Host headers; RFC 9112 makes that a bad request.
    if (rawHeaderCount(request.rawHeaders, 'host') > 1) {
      return new McpError(McpErrorCode.InvalidRequest, DUPLICATE_HOST, undefined, 400);
    }
    const host = request.headers.host;
    if (host === undefined) return forbidden(HOST_MISSING_OR_MALFORMED);
    const loopback = isLoopbackAddress(request.socket?.localAddress);
    if (host !== this.lastHost || loopback !== this.lastLoopback) {
      this.lastVerdict = this.checkHost(host, loopback);
      this.lastHost = host;
      this.lastLoopback = loopback;
    }
    if (this.lastVerdict) return this.lastVerdict;
    const origin = request.headers.origin;
    return origin === undefined ? undefined : this.checkOrigin(origin, host);
  }

  /** What is allowed and how to change it, for the startup log. */
  describe(): string {
    return describeHostOriginPolicy(this.allowedHosts, this.allowedOrigins);
  }

  private checkHost(host: string, loopback: boolean): McpError | undefined {
    const hostname = hostnameOf(host);
    if (hostname === undefined) return forbidden(HOST_MISSING_OR_MALFORMED);
    if (this.allowedHosts) {
      return this.allowedHosts.has(hostname) || this.allowedHosts.has(host.trim().toLowerCase())
        ? undefined
        : forbidden(HOST_NOT_LISTED);
    }
    // A loopback connection keeps the stricter rule: loopback names only.
    if (loopback) return LOOPBACK_HOSTS.has(hostname) ? undefined : forbidden(HOST_NOT_LOOPBACK);
    // `localhost` is resolved by the client's own machine (browsers never ask DNS for it), so a page cannot rebind it
    // to this server; it is what a port-forward (Docker, kubectl) sends. Subdomains of localhost are not accepted:
    // not every resolver keeps RFC 6761's promise for them.
    return hostname === 'localhost' || isIpLiteral(hostname) ? undefined : forbidden(HOST_NOT_IP_OR_LOCALHOST);
  }

  private checkOrigin(origin: string, host: string): McpError | undefined {
    if (this.allowedOrigins)
      return this.allowedOrigins.has(origin.toLowerCase()) ? undefined : forbidden(ORIGIN_NOT_LISTED);
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return forbidden(ORIGIN_NOT_ALLOWED);
    }
    // Only a serialized http(s) origin: no path, no credentials, not "null" (an opaque origin: sandboxed frame, file).
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase()) {
      return forbidden(ORIGIN_NOT_ALLOWED);
    }
    if (isLoopbackHostname(url.hostname)) return undefined;
    // An Origin whose host is an IP literal equal to Host (address and port) is not a rebinding vector: DNS
    // rebinding needs a name whose answer the attacker changes, and a page at http://10.1.2.3:3000 was loaded from
    // that address with no lookup at all. So it came from this very listener (same address, same port): it is the
    // server's own page, same-origin, which the Host check already admitted. A page under any DNS name — the
    // attacker's or the server's own — needs allowedOrigins.
    return isIpLiteral(url.hostname) && url.host === host.trim().toLowerCase()
      ? undefined
      : forbidden(ORIGIN_NOT_ALLOWED);
  }
}
