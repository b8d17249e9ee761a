import { describe, expect, it } from 'vitest';
import { TokenCache, tokenCacheKey } from './token.cache.js';

describe('tokenCacheKey', () => {
  it('is the SHA-256 of the token, never the token itself', () => {
    const key = tokenCacheKey('secret-token');
    expect(key).toBe('kwu9xRtq7VwqVnj9bije56BeiktkPPwLRCfD77hsDZQ');
    expect(key).not.toContain('secret');
    expect(tokenCacheKey('secret-token')).toBe(key);
    expect(tokenCacheKey('secret-token2')).not.toBe(key);
  });
});

describe('TokenCache', () => {
  it('forgets an entry at its deadline', () => {
    const cache = new TokenCache<string>(10);
    cache.set('a', 'A', 1_000, 0);
    expect(cache.get('a', 999)).toBe('A');
    expect(cache.get('a', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('caches nothing with a deadline already past', () => {
    const cache = new TokenCache<string>(10);
    cache.set('a', 'A', 5, 10);
    expect(cache.get('a', 0)).toBeUndefined();
  });

  it('drops the least recently used entry when full', () => {
    const cache = new TokenCache<string>(2);
    cache.set('a', 'A', 100, 0);
    cache.set('b', 'B', 100, 0);
    expect(cache.get('a', 1)).toBe('A');
    cache.set('c', 'C', 100, 1);
    expect(cache.size).toBe(2);
    expect(cache.get('b', 2)).toBeUndefined();
    expect(cache.get('a', 2)).toBe('A');
    expect(cache.get('c', 2)).toBe('C');
  });
});
