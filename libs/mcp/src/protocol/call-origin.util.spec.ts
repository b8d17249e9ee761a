import { describe, expect, it } from 'vitest';
import { callerKeyOf } from './call-origin.util.js';

describe('callerKeyOf', () => {
  const http = { origin: 'http' as const, httpRequest: { ip: '203.0.113.7' }, remoteAddress: '10.0.0.1' };

  it('keys a principal apart from an address, in the caps key space', () => {
    expect(callerKeyOf({ ...http, principal: 'alice' })).toBe('p:alice');
    expect(callerKeyOf({ ...http, principal: '203.0.113.7' })).not.toBe(callerKeyOf(http));
    expect(callerKeyOf({ origin: 'in-process', principal: 'alice' })).toBe('p:alice'); // the testing kit with a principal
  });

  it("counts an anonymous HTTP caller by the framework's ip, else the socket's address, an IPv6 address by its /64", () => {
    expect(callerKeyOf(http)).toBe('a:203.0.113.7');
    expect(callerKeyOf({ ...http, httpRequest: {} })).toBe('a:10.0.0.1');
    expect(callerKeyOf({ ...http, httpRequest: { ip: '2001:db8:1:2:3:4:5:6' } })).toBe(
      callerKeyOf({ ...http, httpRequest: { ip: '2001:db8:1:2:ffff::1' } }),
    );
  });

  it('keys anonymous local callers by their origin, whatever request object they carry', () => {
    expect(callerKeyOf({ origin: 'stdio' })).toBe('stdio');
    expect(callerKeyOf({ origin: 'in-process', httpRequest: { headers: {} } })).toBe('in-process');
    expect(callerKeyOf({ origin: 'task', httpRequest: { headers: {} } })).toBe('task');
    // Only the origin says remote: a local call with an address is still keyed by its origin.
    expect(callerKeyOf({ origin: 'stdio', remoteAddress: '10.0.0.1' })).toBe('stdio');
  });
});
