import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { McpError } from '../../protocol/mcp.error.js';
import { HostOriginValidator } from './host-origin.validator.js';

/** The parts of a Node request the validator reads: headers, raw headers and the local address of the connection. */
function requestOn(
  localAddress: string,
  host: string | undefined,
  origin?: string,
  rawHeaders?: string[],
): IncomingMessage {
  const headers: Record<string, string> = {};
  if (host !== undefined) headers.host = host;
  if (origin !== undefined) headers.origin = origin;
  return { socket: { localAddress }, headers, rawHeaders } as unknown as IncomingMessage;
}

const LOOPBACK = '127.0.0.1';
const PUBLIC = '10.1.2.3';
const LISTED_HOSTS = new Set(['mcp.example.com']);
const LISTED_ORIGINS = new Set(['https://app.example.com']);

/** `ok`: the request proceeds; a number: the HTTP status of the refusal (always JSON-RPC -32600). */
type Outcome = 'ok' | 400 | 403;

/** Checks the validator's verdict on a request against the expected outcome. */
function expectOutcome(error: McpError | undefined, expected: Outcome): void {
  if (expected === 'ok') expect(error).toBeUndefined();
  else expect([error?.httpStatus, error?.code]).toEqual([expected, -32600]);
}

/** Host cases × connection, without options: [label, Host (undefined = missing), loopback outcome, non-loopback outcome]. */
const HOSTS: [string, string | undefined, Outcome, Outcome][] = [
  ['localhost', 'localhost', 'ok', 'ok'],
  ['localhost with a port', 'localhost:3000', 'ok', 'ok'],
  ['127.0.0.1:3000', '127.0.0.1:3000', 'ok', 'ok'],
  ['[::1]', '[::1]', 'ok', 'ok'],
  ['[::1]:3000', '[::1]:3000', 'ok', 'ok'],
  ['the IP of the connection', '10.1.2.3', 403, 'ok'],
  ['another IPv4 literal with a port', '192.0.2.7:8080', 403, 'ok'],
  ['an IPv6 literal', '[2001:db8::1]:3000', 403, 'ok'],
  ['attacker.example', 'attacker.example', 403, 403],
  ['attacker.example with a port', 'attacker.example:3000', 403, 403],
  ['a name not configured (mcp.example.com)', 'mcp.example.com', 403, 403],
  ['a subdomain of localhost (RFC 6761 is not relied on)', 'evil.localhost', 403, 403],
  ['localhost with a trailing dot', 'localhost.', 403, 403],
  ['a name that starts like an IP', '127.0.0.1.attacker.example', 403, 403],
  ['a shortened IPv4 (resolvers differ)', '127.1', 403, 403],
  ['an unbracketed IPv6', '::1', 403, 403],
  ['a malformed port', '10.1.2.3:80x', 403, 403],
  ['an IP with an empty port', '10.1.2.3:', 403, 403],
  ['an empty Host', '', 403, 403],
  ['missing (HTTP/1.0)', undefined, 403, 403],
];

describe('HostOriginValidator: Host without allowedHosts', () => {
  const validator = new HostOriginValidator();
  describe.each([
    ['loopback', LOOPBACK, 2],
    ['non-loopback', PUBLIC, 3],
  ] as const)('on a %s connection', (_connection, address, column) => {
    it.each(HOSTS)('Host %s', (_label, ...row) => {
      const expected = row[column - 1] as Outcome;
      expectOutcome(validator.check(requestOn(address, row[0] as string | undefined)), expected);
    });
  });

  it('names the option to set when a DNS name is refused', () => {
    expect(validator.check(requestOn(PUBLIC, 'mcp.example.com'))?.message).toContain('allowedHosts');
    expect(validator.check(requestOn(LOOPBACK, 'mcp.example.com'))?.message).toContain('allowedHosts');
  });

  it.each([LOOPBACK, PUBLIC])('refuses a duplicated Host with 400 on %s, even when the first is allowed', (address) => {
    const request = requestOn(address, 'localhost', undefined, [
      'Host',
      'localhost',
      'Accept',
      '*/*',
      'HOST',
      'attacker.example',
    ]);
    expect(validator.check(request)?.httpStatus).toBe(400);
    expect(validator.check(request)?.code).toBe(-32600);
    expect(
      validator.check(requestOn(address, 'localhost', undefined, ['Host', 'localhost', 'Hostx', 'a'])),
    ).toBeUndefined();
  });

  it('gives the same answer to the same Host on the other kind of connection (the last verdict is not reused)', () => {
    expect(validator.check(requestOn(PUBLIC, '10.1.2.3'))).toBeUndefined();
    expect(validator.check(requestOn(LOOPBACK, '10.1.2.3'))?.httpStatus).toBe(403);
    expect(validator.check(requestOn(PUBLIC, '10.1.2.3'))).toBeUndefined();
  });
});

describe('HostOriginValidator: Host with allowedHosts', () => {
  const validator = new HostOriginValidator(new Set(['mcp.example.com', 'api.example.com:8443']));
  it.each([
    ['the listed name', 'mcp.example.com', 'ok'],
    ['the listed name with any port', 'MCP.example.com:443', 'ok'],
    ['a name listed with its port', 'api.example.com:8443', 'ok'],
    ['a name listed with another port', 'api.example.com:9000', 403],
    ['localhost (not listed)', 'localhost', 403],
    ['an IP literal (not listed)', '10.1.2.3', 403],
    ['attacker.example', 'attacker.example', 403],
    ['the listed name with a malformed port', 'mcp.example.com:x', 403],
    ['missing', undefined, 403],
  ] as const)('Host: %s (%s) → %s on either connection', (_label, host, expected) => {
    for (const address of [LOOPBACK, PUBLIC]) {
      expectOutcome(validator.check(requestOn(address, host)), expected);
    }
  });
});

/**
 * Origin cases with a Host that passes: [label, Origin (undefined = absent), outcome on a loopback connection with
 * Host 127.0.0.1:3000, outcome on a non-loopback connection with Host 10.1.2.3:3000].
 */
const ORIGINS: [string, string | undefined, Outcome, Outcome][] = [
  ['absent (not a browser)', undefined, 'ok', 'ok'],
  ['http://localhost', 'http://localhost:6274', 'ok', 'ok'],
  ['https://127.x', 'https://127.5.6.7', 'ok', 'ok'],
  ['http://[::1]', 'http://[::1]:3000', 'ok', 'ok'],
  ['the same loopback IP as Host', 'http://127.0.0.1:3000', 'ok', 'ok'],
  ['the same IP literal as Host', 'http://10.1.2.3:3000', 403, 'ok'],
  ['the same IP literal on another port', 'http://10.1.2.3:4000', 403, 403],
  ['another IP literal', 'http://10.9.9.9:3000', 403, 403],
  ['attacker.example', 'http://attacker.example:3000', 403, 403],
  ['a listed origin, with no allowedOrigins set', 'https://app.example.com', 403, 403],
  ['a loopback-looking name', 'http://127.0.0.1.attacker.example', 403, 403],
  ['credentials before an attacker host', 'http://localhost@attacker.example', 403, 403],
  ['a loopback origin with a path (not an origin)', 'http://localhost:3000/', 403, 403],
  ['a non-http scheme', 'file://', 403, 403],
  ['ftp on localhost', 'ftp://localhost', 403, 403],
  ['malformed', 'not a url', 403, 403],
  ['"null" (sandboxed frame, file page)', 'null', 403, 403],
];

describe('HostOriginValidator: Origin without allowedOrigins', () => {
  const validator = new HostOriginValidator();
  describe.each([
    ['loopback', LOOPBACK, '127.0.0.1:3000', 2],
    ['non-loopback', PUBLIC, '10.1.2.3:3000', 3],
  ] as const)('on a %s connection (Host %s)', (_connection, address, host, column) => {
    it.each(ORIGINS)('Origin %s', (_label, ...row) => {
      const expected = row[column - 1] as Outcome;
      expectOutcome(validator.check(requestOn(address, host, row[0] as string | undefined)), expected);
    });
  });

  it('refuses attacker.example with a matching Origin, the DNS-rebinding request, on a non-loopback connection', () => {
    const error = validator.check(requestOn(PUBLIC, 'attacker.example:3000', 'http://attacker.example:3000'));
    expect([error?.httpStatus, error?.code]).toEqual([403, -32600]);
    expect(error?.message).toContain('allowedHosts');
  });

  it('refuses a same-origin page on a listed host name unless allowedOrigins lists it, and names the option', () => {
    const listedHosts = new HostOriginValidator(LISTED_HOSTS);
    const error = listedHosts.check(requestOn(PUBLIC, 'mcp.example.com', 'https://mcp.example.com'));
    expect([error?.httpStatus, error?.code]).toEqual([403, -32600]);
    expect(error?.message).toContain('allowedOrigins');
    expect(listedHosts.check(requestOn(PUBLIC, 'mcp.example.com', 'http://localhost:6274'))).toBeUndefined();
  });
});

describe('HostOriginValidator: Origin with allowedOrigins', () => {
  const validator = new HostOriginValidator(LISTED_HOSTS, LISTED_ORIGINS);
  it.each([
    ['absent', undefined, 'ok'],
    ['listed', 'https://app.example.com', 'ok'],
    ['listed, other case', 'HTTPS://APP.example.com', 'ok'],
    ['loopback, not listed', 'http://localhost:6274', 403],
    ['the Host itself, not listed', 'https://mcp.example.com', 403],
    ['attacker', 'https://attacker.example', 403],
    ['malformed', 'not a url', 403],
    ['"null"', 'null', 403],
  ] as const)('Origin: %s (%s) → %s on either connection', (_label, origin, expected) => {
    for (const address of [LOOPBACK, PUBLIC]) {
      expectOutcome(validator.check(requestOn(address, 'mcp.example.com', origin)), expected);
    }
  });

  it('checks the Host before the Origin: a listed Origin does not admit an unlisted Host', () => {
    expect(validator.check(requestOn(PUBLIC, 'attacker.example', 'https://app.example.com'))?.httpStatus).toBe(403);
  });
});

describe('HostOriginValidator.describe (the startup log)', () => {
  it('says what is allowed by default and how to serve a DNS name', () => {
    const text = new HostOriginValidator().describe();
    expect(text).toContain('localhost');
    expect(text).toContain('IP');
    expect(text).toContain("allowedHosts: ['mcp.example.com']");
    expect(text).toContain('allowedOrigins');
  });

  it('lists the configured names', () => {
    const text = new HostOriginValidator(LISTED_HOSTS, LISTED_ORIGINS).describe();
    expect(text).toContain('mcp.example.com');
    expect(text).toContain('https://app.example.com');
  });
});
