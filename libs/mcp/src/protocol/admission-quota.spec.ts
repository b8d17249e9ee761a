import { describe, expect, it } from 'vitest';
import { addressGroup, AdmissionQuota, type AdmissionLease, type AdmissionResult } from './admission-quota.js';

const leaseOf = (result: AdmissionResult): AdmissionLease => {
  if (!('lease' in result)) throw new Error(`refused: ${result.refused}`);
  return result.lease;
};

describe('AdmissionQuota', () => {
  it('caps one principal without touching the others', () => {
    const quota = new AdmissionQuota({ total: 10, perPrincipal: 2, perAddress: 5 });
    leaseOf(quota.tryAcquire({ principal: 'alice', address: '10.0.0.1' }));
    leaseOf(quota.tryAcquire({ principal: 'alice', address: '10.0.0.2' }));
    expect(quota.tryAcquire({ principal: 'alice', address: '10.0.0.3' })).toEqual({ refused: 'principal' });
    leaseOf(quota.tryAcquire({ principal: 'bob', address: '10.0.0.1' }));
    expect(quota.size).toBe(3);
  });

  it('caps anonymous callers per remote address', () => {
    const quota = new AdmissionQuota({ total: 10, perPrincipal: 5, perAddress: 1 });
    leaseOf(quota.tryAcquire({ address: '10.0.0.1' }));
    expect(quota.tryAcquire({ address: '10.0.0.1' })).toEqual({ refused: 'address' });
    leaseOf(quota.tryAcquire({ address: '10.0.0.2' }));
    // An authenticated caller on the same address is counted by its principal instead.
    leaseOf(quota.tryAcquire({ principal: 'carol', address: '10.0.0.1' }));
  });

  it('keeps the total cap and gives slots back once per lease', () => {
    const quota = new AdmissionQuota({ total: 2, perPrincipal: 5, perAddress: 5 });
    const first = leaseOf(quota.tryAcquire({ principal: 'a' }));
    leaseOf(quota.tryAcquire({}));
    expect(quota.tryAcquire({ principal: 'b' })).toEqual({ refused: 'total' });
    first.release();
    first.release();
    expect(quota.size).toBe(1);
    expect(quota.heldBy({ principal: 'a' })).toBe(0);
    leaseOf(quota.tryAcquire({ principal: 'b' }));
    expect(quota.tryAcquire({ principal: 'c' })).toEqual({ refused: 'total' });
  });

  it('keeps principals and addresses in separate key spaces', () => {
    const quota = new AdmissionQuota({ total: 10, perPrincipal: 1, perAddress: 1 });
    leaseOf(quota.tryAcquire({ principal: '10.0.0.1' }));
    leaseOf(quota.tryAcquire({ address: '10.0.0.1' }));
  });

  it('counts an IPv6 caller by its /64 and an IPv4-mapped one by its IPv4 address', () => {
    expect(addressGroup('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressGroup('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressGroup('10.1.2.3')).toBe('10.1.2.3');
    const quota = new AdmissionQuota({ total: 10, perPrincipal: 5, perAddress: 1 });
    leaseOf(quota.tryAcquire({ address: '2001:db8:1:2::10' }));
    expect(quota.tryAcquire({ address: '2001:db8:1:2::11' })).toEqual({ refused: 'address' });
    leaseOf(quota.tryAcquire({ address: '2001:db8:1:3::10' }));
  });
});
