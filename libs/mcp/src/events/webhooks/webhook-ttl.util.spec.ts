import { describe, expect, it } from 'vitest';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import { grantExpiry } from './webhook-ttl.util.js';

const options = (webhooks = {}) =>
  new McpResolvedOptions({ name: 't', version: '1', events: { webhooks } }).events.webhooks;

describe('grantExpiry (SEP-3415 "Subscription TTL")', () => {
  const now = 1_000_000;
  it('omitted → default; too short → floor; too long → ceiling; ≤ 0 → floor', () => {
    const resolved = options();
    expect(grantExpiry(undefined, resolved, now)).toBe(now + 3_600_000);
    expect(grantExpiry(5, resolved, now)).toBe(now + 60_000);
    expect(grantExpiry(-10, resolved, now)).toBe(now + 60_000);
    expect(grantExpiry(10 * 86_400_000, resolved, now)).toBe(now + 86_400_000);
  });

  it('null is no expiry only with allowNoExpiry (which needs a durable store), else the default', () => {
    expect(grantExpiry(null, options(), now)).toBe(now + 3_600_000);
    const durable = { durable: true } as never;
    expect(grantExpiry(null, options({ allowNoExpiry: true, store: durable }), now)).toBeNull();
    expect(() => options({ allowNoExpiry: true })).toThrow(/durable/);
  });

  it('a wrong JSON type is -32602', () => {
    expect(() => grantExpiry('60000', options(), now)).toThrow(expect.objectContaining({ code: -32602 }));
  });
});

describe('events options checked at startup', () => {
  it('heartbeats at most 30 s apart (SEP-3415, "Lifecycle"), TTL bounds in order, known profiles', () => {
    const resolve = (events: object) => new McpResolvedOptions({ name: 't', version: '1', events });
    expect(() => resolve({ heartbeatMs: 40_000 })).toThrow(/heartbeatMs/);
    expect(() => resolve({ webhooks: { minTtlMs: 10_000, defaultTtlMs: 5_000 } })).toThrow(/minTtlMs/);
    expect(() => resolve({ profile: 'sketch' })).toThrow(/profile/);
    expect(() => resolve({ webhooks: { preverifiedUrls: ['http://hooks.example.com/'] } })).toThrow(/preverifiedUrls/);
    expect(resolve({}).events).toMatchObject({
      profile: 'sep-3415',
      topLevelCapability: true,
      webhookId: 'eventId',
      heartbeatMs: 20_000,
    });
  });
});
