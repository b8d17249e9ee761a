import { ConsoleLogger, Logger } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpError } from '../protocol/mcp.error.js';
import { RequestStateCodec } from './request-state.codec.js';
import { RecordingLogger } from '../../../../test/support/recording.logger.js';

/** Layout of the sealed bytes after `v1.`: keyId(4) | iv(12) | ciphertext | tag(16). */
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;

const newKey = () => randomBytes(32).toString('base64');
const KEY_A = newKey();
const KEY_B = newKey();
const KEY_C = newKey();

/** A codec as the module builds it: the server's name, its endpoint path and, optionally, the app's global prefix. */
function codecWith(keys?: string[], server: { name?: string; path?: string; prefix?: string } = {}): RequestStateCodec {
  const options = new McpResolvedOptions({
    name: server.name ?? 'x',
    version: '1',
    requestState: keys ? { keys } : {},
  });
  const config = new ApplicationConfig();
  if (server.prefix !== undefined) config.setGlobalPrefix(server.prefix);
  return new RequestStateCodec(options, { path: server.path ?? '/mcp' }, config);
}

const PAYLOAD = {
  m: 'tools/call',
  t: 'deploy',
  d: 'digest',
  a: { confirm: { action: 'accept', content: { confirm: true, note: 'grüße 🚀' } } },
  p: ['next'],
  iat: 1_700_000_000_000,
  sub: 'alice',
};

/** The `-32602` McpError `open` throws, with its message. */
function rejection(codec: RequestStateCodec, token: unknown): McpError {
  try {
    codec.open(token);
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toMatch(/^Invalid requestState: /);
    return error as McpError;
  }
  throw new Error('expected open() to reject the state');
}

const bytesOf = (token: string) => Buffer.from(token.slice('v1.'.length), 'base64url');
const tokenOf = (bytes: Buffer) => `v1.${bytes.toString('base64url')}`;

/** Flips one bit of the sealed bytes at `index` (negative counts from the end). */
function flipped(token: string, index: number): string {
  const bytes = Buffer.from(bytesOf(token));
  const at = index < 0 ? bytes.length + index : index;
  bytes[at] ^= 0x01;
  return tokenOf(bytes);
}

describe('RequestStateCodec', () => {
  let logger: RecordingLogger;
  beforeEach(() => {
    logger = new RecordingLogger();
    Logger.overrideLogger(logger);
  });
  afterEach(() => {
    Logger.overrideLogger(new ConsoleLogger());
  });

  describe('seal / open', () => {
    it('round-trips a payload (unicode included) in the v1 format', () => {
      const codec = codecWith([KEY_A]);
      const sealed = codec.seal(PAYLOAD);
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
      expect(codec.open(sealed)).toEqual(PAYLOAD);
    });

    it('is confidential: the plaintext is not readable from the state', () => {
      const codec = codecWith([KEY_A]);
      const sealed = codec.seal({ secret: 'hunter2-very-visible-marker' });
      expect(sealed).not.toContain('hunter2');
      expect(bytesOf(sealed).toString('utf8')).not.toContain('hunter2');
      expect(bytesOf(sealed).toString('latin1')).not.toContain('hunter2');
    });

    it('uses a fresh IV each time: sealing the same payload twice gives different states', () => {
      const codec = codecWith([KEY_A]);
      const first = codec.seal(PAYLOAD);
      const second = codec.seal(PAYLOAD);
      expect(first).not.toBe(second);
      expect(bytesOf(first).subarray(KEY_ID_BYTES, KEY_ID_BYTES + IV_BYTES)).not.toEqual(
        bytesOf(second).subarray(KEY_ID_BYTES, KEY_ID_BYTES + IV_BYTES),
      );
      expect(codec.open(first)).toEqual(codec.open(second));
    });

    it('opens with another codec instance that has the same key (another replica)', () => {
      expect(codecWith([KEY_A]).open(codecWith([KEY_A]).seal(PAYLOAD))).toEqual(PAYLOAD);
    });
  });

  describe('tampering', () => {
    const codec = codecWith([KEY_A]);
    const sealed = codec.seal(PAYLOAD);
    const length = bytesOf(sealed).length;

    it.each([
      ['the key id', 0, /not issued by this server/],
      ['the IV', KEY_ID_BYTES + 3, /integrity check failed/],
      ['the first ciphertext byte', KEY_ID_BYTES + IV_BYTES, /integrity check failed/],
      [
        'a middle ciphertext byte',
        Math.floor((KEY_ID_BYTES + IV_BYTES + length - TAG_BYTES) / 2),
        /integrity check failed/,
      ],
      ['the last ciphertext byte', -TAG_BYTES - 1, /integrity check failed/],
      ['the tag', -1, /integrity check failed/],
    ])('a flipped bit in %s → -32602', (_label, index, reason) => {
      expect(rejection(codec, flipped(sealed, index)).message).toMatch(reason);
    });

    it('every single-byte change anywhere in the sealed bytes is rejected', () => {
      for (let index = 0; index < length; index++) rejection(codec, flipped(sealed, index));
    });

    it('a changed base64url character is rejected', () => {
      const body = sealed.slice(3);
      const at = Math.floor(body.length / 2);
      const changed = `v1.${body.slice(0, at)}${body[at] === 'A' ? 'B' : 'A'}${body.slice(at + 1)}`;
      rejection(codec, changed);
    });

    it('a state spliced from two states (key id and IV of one, ciphertext of another) is rejected', () => {
      const other = bytesOf(codec.seal({ ...PAYLOAD, sub: 'mallory' }));
      const mine = bytesOf(sealed);
      const spliced = Buffer.concat([
        mine.subarray(0, KEY_ID_BYTES + IV_BYTES),
        other.subarray(KEY_ID_BYTES + IV_BYTES),
      ]);
      rejection(codec, tokenOf(spliced));
    });
  });

  describe('malformed states', () => {
    const codec = codecWith([KEY_A]);
    const sealed = codec.seal(PAYLOAD);

    it.each([
      ['truncated by one character', sealed.slice(0, -1)],
      ['truncated by the whole tag', tokenOf(bytesOf(sealed).subarray(0, bytesOf(sealed).length - TAG_BYTES))],
      ['truncated to the header', tokenOf(bytesOf(sealed).subarray(0, KEY_ID_BYTES + IV_BYTES + TAG_BYTES))],
      ['with extra bytes appended', tokenOf(Buffer.concat([bytesOf(sealed), Buffer.from([0])]))],
      ['just the prefix', 'v1.'],
      ['empty', ''],
    ])('%s → -32602', (_label, token) => {
      rejection(codec, token);
    });

    it.each([
      ['v2', `v2.${sealed.slice(3)}`],
      ['V1 (case)', `V1.${sealed.slice(3)}`],
      ['missing', sealed.slice(3)],
      ['without the dot', `v1${sealed.slice(3)}`],
    ])('wrong version prefix (%s) → -32602 malformed', (_label, token) => {
      expect(rejection(codec, token).message).toMatch(/malformed/);
    });

    it.each([
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
      ['an object', { state: sealed }],
      ['an array', [sealed]],
    ])('a state that is not a string (%s) → -32602', (_label, token) => {
      expect(rejection(codec, token).message).toMatch(/malformed/);
    });

    it('an oversized state is refused before any crypto work', () => {
      expect(rejection(codec, `v1.${'A'.repeat(300 * 1024)}`).message).toMatch(/malformed/);
    });

    it('a valid ciphertext of something that is not JSON cannot be produced by a client (only the server seals)', () => {
      // Re-encrypting is impossible without the key; the nearest a client can get is garbage → integrity failure.
      rejection(codec, tokenOf(randomBytes(bytesOf(sealed).length)));
    });
  });

  describe('bound to the server and its endpoint (associated data)', () => {
    it('opens on another replica of the same server: same keys, name and endpoint', () => {
      const sealed = codecWith([KEY_A], { name: 'ops', path: '/mcp' }).seal(PAYLOAD);
      expect(codecWith([KEY_A], { name: 'ops', path: '/mcp' }).open(sealed)).toEqual(PAYLOAD);
      // The same endpoint spelled with a trailing or doubled slash is the same endpoint.
      expect(codecWith([KEY_A], { name: 'ops', path: 'mcp/' }).open(sealed)).toEqual(PAYLOAD);
    });

    it.each([
      ['another server name', { name: 'billing', path: '/mcp' }],
      ['another endpoint path', { name: 'ops', path: '/admin/mcp' }],
      ['another global prefix', { name: 'ops', path: '/mcp', prefix: 'v2' }],
      ['a name that only differs in case', { name: 'Ops', path: '/mcp' }],
    ])('a state from a server with the same keys but %s → -32602, like an altered state', (_label, other) => {
      const sealed = codecWith([KEY_A], { name: 'ops', path: '/mcp' }).seal(PAYLOAD);
      expect(rejection(codecWith([KEY_A], other), sealed).message).toBe('Invalid requestState: integrity check failed');
    });

    it('name and path cannot be shifted into each other (an unambiguous encoding)', () => {
      // Concatenated, both would read "ops/a/mcp".
      const sealed = codecWith([KEY_A], { name: 'ops', path: '/a/mcp' }).seal(PAYLOAD);
      rejection(codecWith([KEY_A], { name: 'ops/a', path: '/mcp' }), sealed);
    });

    it('each sealing has its own id (key id and IV), the same every time that state is opened', () => {
      const codec = codecWith([KEY_A]);
      const first = codec.seal(PAYLOAD);
      const second = codec.seal(PAYLOAD);
      const opened = codec.openState(first);
      expect(opened.payload).toEqual(PAYLOAD);
      expect(opened.id).toBe(
        bytesOf(first)
          .subarray(0, KEY_ID_BYTES + IV_BYTES)
          .toString('base64url'),
      );
      expect(codec.openState(first).id).toBe(opened.id);
      expect(codec.openState(second).id).not.toBe(opened.id);
    });
  });

  describe('keys and rotation', () => {
    it('a state sealed with the old key opens when the old key is second in the list', () => {
      const before = codecWith([KEY_A]);
      const rotated = codecWith([KEY_B, KEY_A]);
      const sealedBefore = before.seal(PAYLOAD);
      expect(rotated.open(sealedBefore)).toEqual(PAYLOAD);
    });

    it('after rotation the first key seals: the new state opens on rotated replicas, not on ones with only the old key', () => {
      const before = codecWith([KEY_A]);
      const rotated = codecWith([KEY_B, KEY_A]);
      const sealedAfter = rotated.seal(PAYLOAD);
      expect(rotated.open(sealedAfter)).toEqual(PAYLOAD);
      expect(codecWith([KEY_B]).open(sealedAfter)).toEqual(PAYLOAD);
      expect(rejection(before, sealedAfter).message).toMatch(/not issued by this server/);
    });

    it('once the old key is retired its states are rejected', () => {
      const sealedOld = codecWith([KEY_A]).seal(PAYLOAD);
      rejection(codecWith([KEY_B]), sealedOld);
    });

    it('an unknown key → -32602', () => {
      const sealed = codecWith([KEY_A, KEY_B]).seal(PAYLOAD);
      expect(rejection(codecWith([KEY_C]), sealed).message).toMatch(/not issued by this server/);
    });

    it('a state whose key id is rewritten to a known key still fails (the key id is not the secret)', () => {
      const withA = codecWith([KEY_A]);
      const withB = codecWith([KEY_B]);
      const fromB = bytesOf(withB.seal(PAYLOAD));
      const idOfA = bytesOf(withA.seal(PAYLOAD)).subarray(0, KEY_ID_BYTES);
      const relabelled = Buffer.concat([idOfA, fromB.subarray(KEY_ID_BYTES)]);
      expect(rejection(withA, tokenOf(relabelled)).message).toMatch(/integrity check failed/);
    });

    it.each([
      ['16 bytes', randomBytes(16).toString('base64')],
      ['64 bytes', randomBytes(64).toString('base64')],
      ['empty', ''],
    ])('a configured key that is not 32 bytes (%s) fails at construction', (_label, key) => {
      expect(() => codecWith([KEY_A, key])).toThrow(/requestState\.keys\[1\] must be 32 bytes/);
    });

    it('no configured key: a random per-process key, with a warning', () => {
      const first = codecWith();
      const second = codecWith();
      expect(first.open(first.seal(PAYLOAD))).toEqual(PAYLOAD);
      expect(second.open(second.seal(PAYLOAD))).toEqual(PAYLOAD);
      // Two processes (here: two codecs) do not share the random key.
      rejection(second, first.seal(PAYLOAD));
      rejection(first, second.seal(PAYLOAD));
      expect(logger.warnings).toHaveLength(2);
      expect(logger.warnings[0]).toMatch(/random per-process key/);
    });

    it('an empty key list behaves like no keys (random key, warning)', () => {
      const codec = codecWith([]);
      expect(codec.open(codec.seal(PAYLOAD))).toEqual(PAYLOAD);
      expect(logger.warnings).toHaveLength(1);
    });

    it('configured keys log no warning', () => {
      codecWith([KEY_A]);
      expect(logger.warnings).toEqual([]);
    });
  });
});
