/** Texts of the Host/Origin check (DNS-rebinding protection): the errors clients see and the startup log line. */

/** 400: RFC 9112 makes several Host headers a bad request. */
export const DUPLICATE_HOST = 'Bad Request: more than one Host header';

/** 403: no Host header (HTTP/1.0), an empty one, or one that is not `name[:port]`. */
export const HOST_MISSING_OR_MALFORMED =
  'Forbidden: the Host header is missing or malformed (DNS-rebinding protection)';

/** 403: without `allowedHosts`, on a loopback connection. */
export const HOST_NOT_LOOPBACK =
  'Forbidden: Host header not allowed. On a loopback connection only localhost, 127.0.0.1 and [::1] are accepted; ' +
  "to serve a DNS name, set the McpModule option allowedHosts, e.g. allowedHosts: ['mcp.example.com'] (DNS-rebinding protection)";

/** 403: without `allowedHosts`, on any other connection. */
export const HOST_NOT_IP_OR_LOCALHOST =
  'Forbidden: Host header not allowed. Without allowedHosts only localhost and IP addresses are accepted; ' +
  "to serve a DNS name, set the McpModule option allowedHosts, e.g. allowedHosts: ['mcp.example.com'] (DNS-rebinding protection)";

/** 403: `allowedHosts` is set and does not list the Host. */
export const HOST_NOT_LISTED =
  'Forbidden: Host header not in the McpModule option allowedHosts (DNS-rebinding protection)';

/** 403: without `allowedOrigins`. */
export const ORIGIN_NOT_ALLOWED =
  'Forbidden: Origin not allowed. Without allowedOrigins browsers may call this endpoint only from loopback pages ' +
  "(or a page on the same IP address); set the McpModule option allowedOrigins, e.g. allowedOrigins: ['https://app.example.com']";

/** 403: `allowedOrigins` is set and does not list the Origin. */
export const ORIGIN_NOT_LISTED = 'Forbidden: Origin not in the McpModule option allowedOrigins';

/** The startup log line: what the check lets through, and which option changes it. */
export function describeHostOriginPolicy(
  allowedHosts?: ReadonlySet<string>,
  allowedOrigins?: ReadonlySet<string>,
): string {
  const hosts = allowedHosts
    ? `Host check: only allowedHosts (${[...allowedHosts].join(', ') || 'none'})`
    : 'Host check: allowing localhost and IP addresses (only localhost, 127.0.0.1 and [::1] on loopback connections); ' +
      "set allowedHosts: ['mcp.example.com'] to serve a DNS name";
  const origins = allowedOrigins
    ? `Origin check: only allowedOrigins (${[...allowedOrigins].join(', ') || 'none'})`
    : 'Origin check (browsers): allowing loopback origins and the same IP address as Host; ' +
      "set allowedOrigins: ['https://app.example.com'] for a browser app on another origin";
  return `${hosts}. ${origins}.`;
}
