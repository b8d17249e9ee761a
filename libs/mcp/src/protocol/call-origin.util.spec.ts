import { describe, expect, it } from 'vitest';
import { callerKeyOf, callOriginOf } from './call-origin.util.js';

describe('callOriginOf and callerKeyOf', () => {
  const http = { httpRequest: { ip: '203.0.113.7' }, httpResponse: {}, remoteAddress: '10.0.0.1' };

  it('tells the origins apart from what a scope carries', () => {
    expect(callOriginOf(http)).toBe('http');
    expect(callOriginOf({ httpRequest: { headers: {} } })).toBe('in-process');
    expect(callOriginOf({})).toBe('stdio');
    expect(callOriginOf({ ...http, task: { taskId: 't1' } })).toBe('task');
  });

  it('keys a principal apart from an address, in the caps key space', () => {
    expect(callerKeyOf({ ...http, principal: 'alice' })).toBe('p:alice');
    expect(callerKeyOf({ ...http, principal: '203.0.113.7' })).not.toBe(callerKeyOf(http));
    expect(callerKeyOf({ principal: 'alice' })).toBe('p:alice'); // the testing kit with a principal
  });

  it("counts an anonymous HTTP caller by the framework's ip, else the socket's address, an IPv6 address by its /64", () => {
    expect(callerKeyOf(http)).toBe('a:203.0.113.7');
    expect(callerKeyOf({ ...http, httpRequest: {} })).toBe('a:10.0.0.1');
    expect(callerKeyOf({ ...http, httpRequest: { ip: '2001:db8:1:2:3:4:5:6' } })).toBe(callerKeyOf({ ...http, httpRequest: { ip: '2001:db8:1:2:ffff::1' } }));
  });

  it('keys anonymous local callers by their origin', () => {
    expect(callerKeyOf({})).toBe('stdio');
    expect(callerKeyOf({ httpRequest: { headers: {} } })).toBe('in-process');
    expect(callerKeyOf({ task: { taskId: 't1' }, httpRequest: { headers: {} } })).toBe('task');
  });
});
