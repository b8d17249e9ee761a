import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import {
  MCP_WEBHOOK_SUBSCRIPTION_STORE,
  type McpWebhookSubscriptionStore,
} from '../../protocol/webhook-subscription-store.interface.js';
import { McpEventErrors } from '../event-errors.js';
import { WEBHOOK_ID_PREFIX } from '../events-profile.constants.js';
import { hostOf } from './callback-url.util.js';
import { postWebhook } from './webhook-http.client.js';
import { webhookHeaders } from './webhook-signer.js';

/** Bytes of a challenge answer read at most. */
const MAX_CHALLENGE_ANSWER = 64 * 1024;
/** A subscribe call waits for the challenge: no longer than a client's request likely waits. */
const MAX_CHALLENGE_MS = 10_000;
const MINUTE_MS = 60_000;

/** One subscription asking for consent: who, where, under which id, signed with which secret. */
export interface WebhookConsentRequest {
  readonly principal: string;
  readonly url: URL;
  /** The URL as subscribed (the consent is remembered for exactly this string). */
  readonly urlText: string;
  readonly subscriptionId: string;
  readonly secret: string;
}

/**
 * Endpoint verification (SEP-3415, "Endpoint verification"): no delivery reaches a callback before it consented. A URL
 * under `events.webhooks.preverifiedUrls` consented out of band; otherwise the endpoint is sent a signed
 * `{"type":"verification","challenge":<nonce>}` envelope (all four headers, `webhook-id` `msg_verification_…`) and must
 * answer 2xx with `{"challenge":<the same nonce>}` (compared in constant time). A consent is remembered per
 * `(principal, url)` for `verificationTtlMs` — not per arguments, so varying them cannot multiply POSTs at a victim,
 * and one principal's consent never waives another's. Challenges to one host are rate-limited
 * (`maxVerificationsPerHostPerMinute`, `ResourceExhausted`). A failure is `CallbackEndpointError` with a category only.
 */
@Injectable()
export class WebhookVerifier {
  /** Challenge times per host in the last minute. */
  private readonly recent = new Map<string, number[]>();

  constructor(
    @Inject(MCP_WEBHOOK_SUBSCRIPTION_STORE) private readonly store: McpWebhookSubscriptionStore,
    private readonly errors: McpEventErrors,
    private readonly options: McpResolvedOptions,
  ) {}

  /** Resolves once the endpoint consented; throws `CallbackEndpointError` or `ResourceExhausted` otherwise. */
  async requireConsent(request: WebhookConsentRequest): Promise<void> {
    const webhooks = this.options.events.webhooks;
    if (webhooks.preverifiedUrls.some((prefix) => request.urlText.startsWith(prefix))) return;
    if ((await this.store.verifiedUntil(request.principal, request.urlText)) !== undefined) return;
    this.admitChallenge(hostOf(request.url));
    const challenge = randomBytes(18).toString('base64url');
    const body = JSON.stringify({ type: 'verification', challenge });
    const webhookId = `${WEBHOOK_ID_PREFIX.envelope}verification_${randomBytes(12).toString('base64url')}`;
    const outcome = await postWebhook({
      url: request.url,
      headers: webhookHeaders([request.secret], webhookId, body, request.subscriptionId),
      body,
      timeoutMs: Math.min(webhooks.timeoutMs, MAX_CHALLENGE_MS),
      maxResponseBytes: MAX_CHALLENGE_ANSWER,
      allowLoopback: webhooks.allowInsecureLoopback,
    });
    if (outcome.kind === 'failed') throw this.errors.callbackEndpoint(outcome.failure);
    if (outcome.status < 200 || outcome.status > 299)
      throw this.errors.callbackEndpoint(outcome.status >= 500 ? 'http_5xx' : 'http_4xx');
    if (!echoes(outcome.body, challenge)) throw this.errors.callbackEndpoint('challenge_failed');
    await this.store.markVerified(request.principal, request.urlText, Date.now() + webhooks.verificationTtlMs);
  }

  private admitChallenge(host: string): void {
    const now = Date.now();
    const max = this.options.events.webhooks.maxVerificationsPerHostPerMinute;
    const times = (this.recent.get(host) ?? []).filter((time) => now - time < MINUTE_MS);
    if (times.length >= max) throw this.errors.resourceExhausted('verifications_per_host', max);
    times.push(now);
    this.recent.set(host, times);
    // Hosts not challenged for a minute are forgotten.
    if (this.recent.size > 1_000)
      for (const [key, list] of this.recent) if (list.every((time) => now - time >= MINUTE_MS)) this.recent.delete(key);
  }
}

/** Whether an answer body is `{"challenge": <challenge>}` (constant-time comparison of the nonce). */
function echoes(body: string, challenge: string): boolean {
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    return false;
  }
  const echoed = (answer as { challenge?: unknown } | null)?.challenge;
  if (typeof echoed !== 'string') return false;
  const [given, expected] = [Buffer.from(echoed), Buffer.from(challenge)];
  return given.length === expected.length && timingSafeEqual(given, expected);
}
