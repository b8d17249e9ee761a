import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HostOriginValidator } from './host-origin.validator.js';

/** The parts of a Node request the validator reads: headers and the local address the connection arrived on. */
function requestOn(localAddress: string, headers: Record<string, string>): IncomingMessage {
  return { socket: { localAddress }, headers, headersDistinct: {} } as unknown as IncomingMessage;
}

describe('HostOriginValidator', () => {
  it('accepts loopback names and refuses others on a loopback connection', () => {
    const validator = new HostOriginValidator();
    expect(validator.check(requestOn('127.0.0.1', { host: 'localhost:3000' }))).toBeUndefined();
    expect(validator.check(requestOn('::1', { host: '[::1]:3000' }))).toBeUndefined();
    expect(validator.check(requestOn('127.0.0.1', { host: 'evil.example.com' }))?.httpStatus).toBe(403);
  });

  it('warns once when a non-loopback connection arrives without allowedHosts, and accepts it', () => {
    const warnings: string[] = [];
    const validator = new HostOriginValidator(undefined, undefined, (address) => warnings.push(address));
    expect(validator.check(requestOn('10.1.2.3', { host: 'mcp.example.com' }))).toBeUndefined();
    expect(validator.check(requestOn('10.1.2.3', { host: 'other.example.com' }))).toBeUndefined();
    expect(warnings).toEqual(['10.1.2.3']);
  });

  it('checks the configured hosts on any address, and never warns then', () => {
    const warnings: string[] = [];
    const validator = new HostOriginValidator(new Set(['mcp.example.com']), undefined, (address) => warnings.push(address));
    expect(validator.check(requestOn('10.1.2.3', { host: 'mcp.example.com:443' }))).toBeUndefined();
    expect(validator.check(requestOn('10.1.2.3', { host: 'evil.example.com' }))?.httpStatus).toBe(403);
    expect(warnings).toEqual([]);
  });

  it('requires a same-origin Origin on a non-loopback connection without allowedOrigins', () => {
    const validator = new HostOriginValidator();
    expect(validator.check(requestOn('10.1.2.3', { host: 'mcp.example.com', origin: 'https://mcp.example.com' }))).toBeUndefined();
    expect(validator.check(requestOn('10.1.2.3', { host: 'mcp.example.com', origin: 'https://evil.example.com' }))?.httpStatus).toBe(403);
  });

  it('refuses a repeated Host header, which Node hides from request.headers (400)', () => {
    const validator = new HostOriginValidator();
    const request = {
      socket: { localAddress: '127.0.0.1' },
      headers: { host: 'localhost' },
      rawHeaders: ['Host', 'localhost', 'Accept', '*/*', 'HOST', 'evil.example.com'],
    } as unknown as IncomingMessage;
    expect(validator.check(request)?.httpStatus).toBe(400);
    expect(validator.check({ ...request, rawHeaders: ['Host', 'localhost', 'Hostx', 'a'] } as IncomingMessage)).toBeUndefined();
  });
});
