import { describe, expect, it } from 'vitest';
import { isDeliverableAddress } from './address.policy.js';

describe('isDeliverableAddress (SEP-3415 "SSRF prevention", the IANA special-purpose registries)', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.9.9.9',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.10',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:10.0.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::a00:1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '2001::1',
    '2001:db8::1',
    '2002:c000:0204::1',
    'localhost',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isDeliverableAddress(address, false)).toBe(false);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::1',
  ])('accepts the public address %s', (address) => {
    expect(isDeliverableAddress(address, false)).toBe(true);
  });

  it('the development switch admits exactly 127.0.0.1, nothing else private', () => {
    expect(isDeliverableAddress('127.0.0.1', true)).toBe(true);
    for (const address of ['127.0.0.2', '::1', '10.0.0.1', '169.254.169.254', '::ffff:127.0.0.1'])
      expect(isDeliverableAddress(address, true)).toBe(false);
  });
});
