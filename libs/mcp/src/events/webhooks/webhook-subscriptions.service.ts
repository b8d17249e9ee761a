import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../../config/resolved-options.js';
import { RequestStateCodec } from '../../mrtr/request-state.codec.js';
import { isJsonObject } from '../../protocol/json-object.util.js';
import type { JsonObject } from '../../protocol/json-rpc.interface.js';
import type { McpCaller } from '../../protocol/mcp-caller.interface.js';
import type { McpRequestScope } from '../../protocol/mcp-request-scope.interface.js';
import { McpError } from '../../protocol/mcp.error.js';
import {
  MCP_WEBHOOK_SUBSCRIPTION_STORE,
  type McpWebhookSubscriptionRecord,
  type McpWebhookSubscriptionStore,
} from '../../protocol/webhook-subscription-store.interface.js';
import { EventCursorCodec } from '../event-cursor.codec.js';
import { McpEventErrors } from '../event-errors.js';
import { notBeforeOf, optionalNonNegativeInteger } from '../event-params.util.js';
import { EventSubscriptionResolver } from '../event-subscription.resolver.js';
import { SEAL_LABELS } from '../events.constants.js';
import { parseCallbackUrl } from './callback-url.util.js';
import { storeKeyOf, subscriptionIdOf, type WebhookSubscriptionKey } from './subscription-key.util.js';
import { WebhookFanout } from './webhook-fanout.service.js';
import { checkWebhookSecret } from './webhook-secret.util.js';
import { WebhookSecrets } from './webhook-secrets.js';
import { grantExpiry } from './webhook-ttl.util.js';
import { WebhookVerifier } from './webhook-verifier.service.js';

/**
 * `events/subscribe` and `events/unsubscribe` (SEP-3415, "Webhook-Based Delivery"; docs/events.md, "Webhooks").
 *
 * Subscribe checks, in SEP-3415's order (mcp-handler's): an authenticated principal (`Forbidden`) → `delivery.mode`
 * (absent means webhook; another is `Unsupported`) → `delivery.url` (https, no userinfo or fragment, a public IP
 * literal; `-32602`) → `delivery.secret` (`whsec_`, 24-64 bytes; `-32602`) → the type, its visibility, its modes, the
 * arguments and `authorize` (as poll and push) → `ttlMs` → the per-principal quota (`ResourceExhausted`, before any
 * network call) → the endpoint's consent (`CallbackEndpointError`) → the upsert. The subscription is keyed by
 * `(principal, url, name, arguments)`; a subscribe with the same key is a refresh: the secret is replaced (the old one
 * still signs for `secretGraceMs`), the TTL granted again, the cursor ignored while the subscription is live. A new
 * (or lapsed, or lost) subscription with a cursor replays what the log still holds after it.
 *
 * Unsubscribe resolves the same key (never the id, never the current catalog: a removed type can still be left),
 * stops deliveries at once (queued ones find no subscription and are dropped) and answers an empty result; no such
 * subscription is `NotFound` (kind `subscription`), or an empty result with the `openai` profile.
 */
@Injectable()
export class WebhookSubscriptionsService {
  private readonly idKey: Buffer;

  constructor(
    @Inject(MCP_WEBHOOK_SUBSCRIPTION_STORE) private readonly store: McpWebhookSubscriptionStore,
    private readonly resolver: EventSubscriptionResolver,
    private readonly verifier: WebhookVerifier,
    private readonly fanout: WebhookFanout,
    private readonly secrets: WebhookSecrets,
    private readonly cursors: EventCursorCodec,
    private readonly errors: McpEventErrors,
    private readonly options: McpResolvedOptions,
    sealer: RequestStateCodec,
  ) {
    this.idKey = sealer.derivedKey(SEAL_LABELS.subscriptionId);
  }

  async subscribe(scope: McpRequestScope): Promise<JsonObject> {
    const webhooks = this.options.events.webhooks;
    const principal = this.principalOf(scope);
    const delivery = deliveryOf(scope.params);
    if (delivery.mode !== undefined && delivery.mode !== 'webhook')
      throw this.errors.unsupportedMode(String(delivery.mode));
    const url = parseCallbackUrl(delivery.url, webhooks.allowInsecureLoopback);
    const urlText = delivery.url as string;
    const secret = checkWebhookSecret(delivery.secret);
    const subscription = await this.resolver.resolve(scope, 'webhook');
    const { type } = subscription;
    const expiresAt = grantExpiry(scope.params.ttlMs, webhooks);
    const maxAgeMs = optionalNonNegativeInteger(scope.params, 'maxAgeMs');
    const key: WebhookSubscriptionKey = { principal, url: urlText, name: type.name, arguments: subscription.arguments };
    const from = this.cursors.open(scope.params.cursor, type.name, subscription.hash);
    const storeKey = storeKeyOf(key);
    const existing = await this.store.get(storeKey);
    if (!existing && (await this.store.countByPrincipal(principal)) >= webhooks.maxSubscriptionsPerPrincipal) {
      throw this.errors.resourceExhausted('subscriptions', webhooks.maxSubscriptionsPerPrincipal);
    }
    const id = subscriptionIdOf(key, this.idKey);
    await this.verifier.requireConsent({ principal, url, urlText, subscriptionId: id, secret });
    const now = Date.now();
    const rotated = existing !== undefined && this.secrets.open(existing.sealedSecret) !== secret;
    const record: McpWebhookSubscriptionRecord = {
      key: storeKey,
      id,
      incarnation: existing?.incarnation ?? randomBytes(12).toString('base64url'),
      principal,
      url: urlText,
      name: type.name,
      arguments: subscription.arguments,
      sealedSecret: rotated || !existing ? this.secrets.seal(secret) : existing.sealedSecret,
      ...(rotated
        ? { previousSealedSecret: existing.sealedSecret, previousSecretUntil: now + webhooks.secretGraceMs }
        : existing?.previousSealedSecret !== undefined && {
            previousSealedSecret: existing.previousSealedSecret,
            previousSecretUntil: existing.previousSecretUntil,
          }),
      // What delivery-time authorization checks against (refreshed by each refresh): never the token itself.
      ...callerGrant(this.resolver.callerOf(scope)),
      expiresAt,
      createdAt: existing?.createdAt ?? now,
      delivery: existing?.delivery ?? {},
    };
    await this.store.put(record);
    // A live subscription ignores the cursor (SEP-3415: a no-op while live); a new one replays from it.
    const truncated =
      !existing && from && type.retention ? await this.fanout.replay(type, record, from, notBeforeOf(maxAgeMs)) : false;
    return {
      id,
      refreshBefore: expiresAt === null ? null : new Date(expiresAt).toISOString(),
      cursor: await this.fanout.watermark(type, record),
      truncated,
      ...(existing && { deliveryStatus: deliveryStatusOf(existing) }),
    };
  }

  async unsubscribe(scope: McpRequestScope): Promise<JsonObject> {
    const principal = this.principalOf(scope);
    const name = scope.params.name;
    if (typeof name !== 'string' || name.length === 0)
      throw McpError.invalidParams('Invalid params: "name" must be a non-empty string');
    const delivery = deliveryOf(scope.params);
    if (typeof delivery.url !== 'string' || delivery.url.length === 0)
      throw McpError.invalidParams('Invalid params: delivery.url must be a non-empty string');
    const { args } = this.resolver.readArguments(scope.params);
    const removed = await this.store.delete(storeKeyOf({ principal, url: delivery.url, name, arguments: args }));
    if (!removed && this.errors.profile.unsubscribeUnknown === 'NotFound')
      throw this.errors.notFound('subscription', 'no subscription has this name, arguments and url');
    return {};
  }

  /** Webhook mode requires an authenticated principal (SEP-3415, "Subscription identity"). */
  private principalOf(scope: McpRequestScope): string {
    if (scope.principal === undefined)
      throw this.errors.forbidden('webhook subscriptions need an authenticated principal');
    return scope.principal;
  }
}

/** `params.delivery`, an object; `-32602` otherwise. */
function deliveryOf(params: JsonObject): Record<string, unknown> {
  if (!isJsonObject(params.delivery))
    throw McpError.invalidParams('Invalid params: "delivery" must be an object { mode, url, secret }');
  return params.delivery;
}

/** `deliveryStatus` of a refresh (SEP-3415, "Webhook delivery status"): categories and times only. */
function deliveryStatusOf(record: McpWebhookSubscriptionRecord): JsonObject {
  const { lastDeliveryAt, lastError, failedSince } = record.delivery;
  return {
    active: true,
    ...(lastDeliveryAt !== undefined && { lastDeliveryAt: new Date(lastDeliveryAt).toISOString() }),
    lastError: lastError ?? null,
    ...(failedSince !== undefined && { failedSince: new Date(failedSince).toISOString() }),
  };
}

/** The part of a caller a webhook subscription keeps for delivery-time authorization. */
function callerGrant(caller: McpCaller): Pick<McpWebhookSubscriptionRecord, 'scopes' | 'trusted'> {
  return { scopes: [...caller.scopes], trusted: caller.trusted };
}
