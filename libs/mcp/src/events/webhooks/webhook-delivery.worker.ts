import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import {
  MCP_WEBHOOK_DELIVERY_QUEUE,
  type McpWebhookDelivery,
  type McpWebhookDeliveryQueue,
} from '../../protocol/webhook-delivery-queue.interface.js';
import {
  MCP_WEBHOOK_SUBSCRIPTION_STORE,
  type McpWebhookDeliveryState,
  type McpWebhookSubscriptionStore,
} from '../../protocol/webhook-subscription-store.interface.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import type { McpWebhookFailure } from '../events-profile.constants.js';
import { postWebhook, type WebhookHttpOutcome } from './webhook-http.client.js';
import { WebhookSecrets } from './webhook-secrets.js';
import { webhookHeaders } from './webhook-signer.js';

/** Bytes of a delivery's answer read at most: only its status matters. */
const MAX_ANSWER_BYTES = 4 * 1024;
/** Statuses after which a `Retry-After` is honoured. */
const THROTTLING = new Set([429, 502, 503, 504]);

/**
 * Makes one attempt of each queued delivery (SEP-3415, "Delivery model"; Standard Webhooks): the subscription is read
 * again first (gone, expired or another incarnation: dropped), the exact queued body is signed afresh (this attempt's
 * timestamp; the current and, during a rotation's grace, the previous secret), and POSTed through the SSRF-checked
 * client. `2xx` acknowledges. `410` and `413` give up on that delivery only. Anything else — another status, a
 * redirect (never followed), a timeout, a refused connection — is retried with exponential backoff and jitter, at most
 * `maxAttempts` times within `retryWindowMs`, later when a `429`/`502`/`503`/`504` says `Retry-After`. The next
 * attempt is a new job on the queue, so with a shared queue any replica may make it. The outcome is kept on the
 * subscription as its `deliveryStatus` (categories only, never what the endpoint said).
 */
@Injectable()
export class WebhookDeliveryWorker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpWebhooks');
  private stop?: () => void;

  constructor(
    @Inject(MCP_WEBHOOK_DELIVERY_QUEUE) private readonly queue: McpWebhookDeliveryQueue,
    @Inject(MCP_WEBHOOK_SUBSCRIPTION_STORE) private readonly store: McpWebhookSubscriptionStore,
    private readonly secrets: WebhookSecrets,
    private readonly options: McpResolvedOptions,
    @Optional() private readonly telemetry?: McpTelemetry,
  ) {}

  onModuleInit(): void {
    this.stop = this.queue.process((delivery) => this.attempt(delivery));
  }

  onModuleDestroy(): void {
    this.stop?.();
  }

  /** One attempt of a delivery. */
  async attempt(delivery: McpWebhookDelivery): Promise<void> {
    const target = await this.targetOf(delivery);
    if (!target) return;
    const webhooks = this.options.events.webhooks;
    const secrets = target.sealedSecrets
      .map((sealed) => this.secrets.open(sealed))
      .filter((secret): secret is string => secret !== undefined);
    const url = new URL(target.url);
    if (secrets.length === 0) {
      this.logger.warn(
        `A webhook delivery to ${url.origin} was dropped: its secret no longer opens (were the requestState keys changed?)`,
      );
      return this.settle(delivery, target.state, 'http_4xx');
    }
    // The attempt's span (docs/observability.md, "Events"): a trace of its own, linked to where the event was emitted.
    const span = this.telemetry?.startDelivery({
      kind: delivery.kind,
      eventName: delivery.eventName,
      attempt: delivery.attempt,
      causedBy: delivery.traceContext,
      url,
    });
    const post = () =>
      postWebhook({
        url,
        headers: webhookHeaders(secrets, delivery.webhookId, delivery.body, target.subscriptionId),
        body: delivery.body,
        timeoutMs: webhooks.timeoutMs,
        maxResponseBytes: MAX_ANSWER_BYTES,
        allowLoopback: webhooks.allowInsecureLoopback,
      });
    const outcome = await (span ? span.run(post) : post());
    const status = outcome.kind === 'answered' ? outcome.status : undefined;
    if (status !== undefined && status >= 200 && status <= 299) {
      span?.end({ outcome: 'delivered', status });
      return this.settle(delivery, target.state);
    }
    const failure = failureOf(outcome);
    if (status === 410 || status === 413) {
      span?.end({ outcome: 'abandoned', status, failure });
      return this.settle(delivery, target.state, failure);
    }
    const now = Date.now();
    const firstAttemptAt = delivery.firstAttemptAt ?? now;
    let delay = webhooks.retryBaseMs * 2 ** (delivery.attempt - 1) * (1 + Math.random() / 2);
    if (outcome.kind === 'answered' && THROTTLING.has(outcome.status) && outcome.retryAfterMs !== undefined)
      delay = Math.max(delay, outcome.retryAfterMs);
    if (delivery.attempt >= webhooks.maxAttempts || now + delay - firstAttemptAt > webhooks.retryWindowMs) {
      this.logger.warn(
        `A webhook delivery to ${url.origin} was abandoned after ${delivery.attempt} attempts (${failure})`,
      );
      span?.end({ outcome: 'abandoned', status, failure });
      return this.settle(delivery, target.state, failure);
    }
    span?.end({ outcome: 'retry', status, failure });
    await this.record(delivery, target.state, failure);
    this.telemetry?.countDeliveryRetry(failure);
    await this.queue.enqueue({ ...delivery, attempt: delivery.attempt + 1, firstAttemptAt }, delay);
  }

  /** Where a delivery goes and how it is signed; undefined when its subscription is gone (it is dropped). */
  private async targetOf(
    delivery: McpWebhookDelivery,
  ): Promise<
    { url: string; subscriptionId: string; sealedSecrets: string[]; state?: McpWebhookDeliveryState } | undefined
  > {
    if (delivery.target)
      return {
        url: delivery.target.url,
        subscriptionId: delivery.target.subscriptionId,
        sealedSecrets: [delivery.target.sealedSecret],
      };
    const subscription = await this.store.get(delivery.subscriptionKey);
    if (!subscription || subscription.incarnation !== delivery.incarnation) return undefined;
    const sealedSecrets = [subscription.sealedSecret];
    if (subscription.previousSealedSecret && (subscription.previousSecretUntil ?? 0) > Date.now())
      sealedSecrets.push(subscription.previousSealedSecret);
    return { url: subscription.url, subscriptionId: subscription.id, sealedSecrets, state: subscription.delivery };
  }

  /** The delivery is over (acknowledged, or given up on with `failure`): no longer in flight. */
  private async settle(
    delivery: McpWebhookDelivery,
    state: McpWebhookDeliveryState | undefined,
    failure?: McpWebhookFailure,
  ): Promise<void> {
    if (delivery.position !== undefined) await this.store.settlePending(delivery.subscriptionKey, delivery.position);
    await this.record(delivery, state, failure);
    this.telemetry?.countDelivery(failure);
  }

  private async record(
    delivery: McpWebhookDelivery,
    state: McpWebhookDeliveryState | undefined,
    failure?: McpWebhookFailure,
  ): Promise<void> {
    if (delivery.target) return;
    const now = Date.now();
    const next: McpWebhookDeliveryState =
      failure === undefined
        ? { lastDeliveryAt: now }
        : { lastDeliveryAt: state?.lastDeliveryAt, lastError: failure, failedSince: state?.failedSince ?? now };
    await this.store.recordDelivery(delivery.subscriptionKey, delivery.incarnation, next);
  }
}

/** The category of a failed attempt (SEP-3415 `lastError`): redirects count as `http_4xx`. */
function failureOf(outcome: WebhookHttpOutcome): McpWebhookFailure {
  if (outcome.kind === 'failed') return outcome.failure;
  return outcome.status >= 500 ? 'http_5xx' : 'http_4xx';
}
