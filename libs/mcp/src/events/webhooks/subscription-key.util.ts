import { createHash, createHmac } from 'node:crypto';
import { canonicalJson } from '../canonical-json.util.js';

/** A webhook subscription's identity (SEP-3415, "Key composition"): all four parts immutable. */
export interface WebhookSubscriptionKey {
  readonly principal: string;
  readonly url: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** The store key of a subscription: SHA-256 (hex) of the canonical JSON of its key tuple. Never sent to anyone. */
export function storeKeyOf(key: WebhookSubscriptionKey): string {
  return createHash('sha256').update(tupleOf(key)).digest('hex');
}

/**
 * The subscription id (SEP-3415, "Derived id"; keyed as the digest's proposal P6): `sub_` + HMAC-SHA256 of the key
 * tuple with a server key derived from the `requestState` keys. Deterministic — the same on every refresh and replica
 * — and, unlike a plain hash, no confirmation of a guessed tuple for whoever sees it.
 */
export function subscriptionIdOf(key: WebhookSubscriptionKey, serverKey: Buffer): string {
  return `sub_${createHmac('sha256', serverKey).update(tupleOf(key)).digest('hex')}`;
}

function tupleOf(key: WebhookSubscriptionKey): string {
  return canonicalJson([key.principal, key.url, key.name, key.arguments]);
}
