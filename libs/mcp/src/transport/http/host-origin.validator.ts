import type { IncomingMessage } from 'node:http';
import { McpErrorCode } from '../../protocol/error-codes.enum.js';
import { McpError } from '../../protocol/mcp.error.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether an address (as Node reports it) is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** `example.com:8080` → `example.com`, `[::1]:3000` → `[::1]`. */
function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end < 0 ? lower : lower.slice(0, end + 1);
  }
  const colon = lower.indexOf(':');
  return colon < 0 ? lower : lower.slice(0, colon);
}

/** Node keeps only the first Host header in `headers`, so a repeated one is only visible in the raw list. */
function hasRepeatedHost(rawHeaders: readonly string[] | undefined): boolean {
  if (!rawHeaders) return false;
  let seen = false;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

const forbidden = (message: string) => new McpError(McpErrorCode.InvalidRequest, message, undefined, 403);

/**
 * DNS-rebinding protection (spec T-HTTP-02 and the conformance suite's `dns-rebinding-protection`): checks the
 * Host header, and the Origin header when a browser sends one, against the configured allow-lists — or, by
 * default, against loopback names when the connection itself arrived on a loopback address.
 */
export class HostOriginValidator {
  private warned = false;

  constructor(
    private readonly allowedHosts?: ReadonlySet<string>,
    private readonly allowedOrigins?: ReadonlySet<string>,
    /** Called once, the first time a request arrives on a non-loopback address while no `allowedHosts` is set. */
    private readonly onUnprotectedHost?: (address: string) => void,
  ) {}

  /** Returns the 403 error to answer, or undefined when the request may proceed. */
  check(request: IncomingMessage): McpError | undefined {
    const loopback = isLoopbackAddress(request.socket?.localAddress);
    // Node keeps the first of several Host headers; RFC 9112 makes that a bad request.
    if (hasRepeatedHost(request.rawHeaders)) {
      return new McpError(McpErrorCode.InvalidRequest, 'Bad Request: more than one Host header', undefined, 400);
    }
    const host = request.headers.host;
    if (this.allowedHosts) {
      if (!host || !(this.allowedHosts.has(host.toLowerCase()) || this.allowedHosts.has(hostnameOf(host)))) {
        return forbidden('Forbidden: Host header not allowed');
      }
    } else if (loopback && (!host || !LOOPBACK_HOSTS.has(hostnameOf(host)))) {
      return forbidden('Forbidden: Host header not allowed');
    } else if (!loopback && !this.warned) {
      // Any Host is accepted here: DNS rebinding is only prevented once the public names are configured.
      this.warned = true;
      this.onUnprotectedHost?.(request.socket?.localAddress ?? 'unknown');
    }

    const origin = request.headers.origin;
    if (origin === undefined) return undefined;
    if (this.allowedOrigins) {
      return this.allowedOrigins.has(origin.toLowerCase()) ? undefined : forbidden('Forbidden: Origin not allowed');
    }
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return forbidden('Forbidden: Origin not allowed');
    }
    if (loopback) {
      return LOOPBACK_HOSTS.has(hostnameOf(originHost)) ? undefined : forbidden('Forbidden: Origin not allowed');
    }
    return host && originHost === host.toLowerCase() ? undefined : forbidden('Forbidden: Origin not allowed');
  }
}
