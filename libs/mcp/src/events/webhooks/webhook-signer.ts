import { Webhook } from 'standardwebhooks';
import { SUBSCRIPTION_ID_HEADER } from '../events-profile.constants.js';

/**
 * The headers of one webhook POST (SEP-3415, "Delivery profile" and "Signature scheme"; Standard Webhooks 1.0.0):
 * `Content-Type: application/json`, `webhook-id`, `webhook-timestamp` (this attempt's, in seconds), and
 * `webhook-signature` — `v1,<HMAC-SHA256>` over `id.timestamp.body` with the decoded secret, by the `standardwebhooks`
 * library, once per secret (space-separated: during a rotation's grace both the new and the old secret sign) — plus
 * `X-MCP-Subscription-Id`.
 */
export function webhookHeaders(
  secrets: readonly string[],
  webhookId: string,
  body: string,
  subscriptionId: string,
  now = new Date(),
): Record<string, string> {
  const signature = secrets.map((secret) => new Webhook(secret).sign(webhookId, now, body)).join(' ');
  return {
    'content-type': 'application/json',
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
    [SUBSCRIPTION_ID_HEADER.toLowerCase()]: subscriptionId,
  };
}
