import { McpError } from '../../protocol/mcp.error.js';

const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Decoded length bounds of a secret (SEP-3415, "Secret generation"): 24 to 64 bytes. */
const MIN_BYTES = 24;
const MAX_BYTES = 64;

/**
 * Checks `delivery.secret` (SEP-3415 and Standard Webhooks): `whsec_` + canonical standard base64 of 24-64 bytes. The
 * client always supplies it; the server never makes one up. The error never repeats the secret.
 */
export function checkWebhookSecret(value: unknown): string {
  const invalid = () =>
    McpError.invalidParams(
      `Invalid params: delivery.secret must be "${PREFIX}" followed by the standard base64 of ${MIN_BYTES} to ${MAX_BYTES} random bytes`,
    );
  if (typeof value !== 'string' || !value.startsWith(PREFIX)) throw invalid();
  const encoded = value.slice(PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) throw invalid();
  const bytes = Buffer.from(encoded, 'base64');
  // Canonical: decoding and encoding again gives the same text (no stray bits in the padding).
  if (bytes.toString('base64') !== encoded || bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) throw invalid();
  return value;
}
