/** What the last deliveries of a webhook subscription did (`deliveryStatus` of a refresh). */
export interface McpWebhookDeliveryState {
  /** Last acknowledged delivery (ms since the epoch). */
  readonly lastDeliveryAt?: number;
  /** The category of the last failure (`timeout`, `http_5xx`, …; never endpoint content), cleared by a success. */
  readonly lastError?: string;
  /** Start of the current failure streak (ms since the epoch). */
  readonly failedSince?: number;
}

/**
 * One webhook subscription of the events extension, as kept (docs/events.md, "Webhooks"). Its key is the tuple
 * `(principal, url, name, arguments)`; `id` is derived from it with a server key. The secret is sealed (AES-256-GCM)
 * before it reaches the store: a store never sees it in clear.
 */
export interface McpWebhookSubscriptionRecord {
  /** SHA-256 of the canonical key tuple (hex): the store's key, never sent to anyone. */
  readonly key: string;
  /** The derived subscription id (`X-MCP-Subscription-Id`). */
  readonly id: string;
  /**
   * Random per creation of the key: deliveries queued for an earlier subscription under the same key (unsubscribed,
   * expired) carry the old value and are dropped.
   */
  readonly incarnation: string;
  readonly principal: string;
  /** The callback URL, byte for byte as subscribed. */
  readonly url: string;
  readonly name: string;
  /** The arguments as subscribed (never transformed). */
  readonly arguments: Record<string, unknown>;
  /** The signing secret, sealed. */
  readonly sealedSecret: string;
  /** The secret a refresh replaced, sealed, signed with too until `previousSecretUntil` (rotation grace). */
  readonly previousSealedSecret?: string;
  readonly previousSecretUntil?: number;
  /**
   * The scopes the caller's token granted when it subscribed (no token: none), and whether the caller was trusted (a
   * local call): what authorization is checked against again at delivery time. Never the token itself.
   */
  readonly scopes?: readonly string[];
  readonly trusted?: boolean;
  /** When it expires (ms since the epoch), `null` for a subscription granted without expiry. */
  readonly expiresAt: number | null;
  readonly createdAt: number;
  readonly delivery: McpWebhookDeliveryState;
}

/**
 * Where webhook subscriptions, the endpoint-consent cache and the in-flight bookkeeping of deliveries live. The
 * default keeps them in this process (`InMemoryWebhookSubscriptionStore`: soft state, rebuilt by the clients' refreshes
 * after a restart); a shared store (Redis) serves several replicas and may be `durable`.
 */
export interface McpWebhookSubscriptionStore {
  /**
   * For a backend kept per named server (`McpRedis.serverOptions(options, { server })`): the server it belongs to,
   * `undefined` for one that is not a named server's. `McpModule` refuses to start a server given another server's
   * (docs/servers.md). Omit it for a backend of one server.
   */
  readonly server?: string;
  /** `true` when several replicas share it (then `requestState.keys` is required: secrets are sealed with them). */
  readonly sharedAcrossReplicas?: boolean;
  /** `true` when subscriptions survive a restart: required to grant subscriptions without expiry. */
  readonly durable?: boolean;
  /** The subscription with this key, if it exists and has not expired. */
  get(key: string): Promise<McpWebhookSubscriptionRecord | undefined>;
  /**
   * Creates or replaces a subscription. Replacing the same incarnation (a refresh) keeps the stored delivery state
   * (`recordDelivery` owns it); a new incarnation starts with the record's.
   */
  put(record: McpWebhookSubscriptionRecord): Promise<void>;
  /** Removes a subscription (and its in-flight bookkeeping); resolves with whether it existed. */
  delete(key: string): Promise<boolean>;
  /** The live (unexpired) subscriptions of an event type, for the fan-out of an occurrence. */
  listByName(name: string): Promise<readonly McpWebhookSubscriptionRecord[]>;
  /** How many live subscriptions a principal holds (the per-principal quota). */
  countByPrincipal(principal: string): Promise<number>;
  /** Records the outcome of a delivery on the subscription, if it is still the same incarnation. */
  recordDelivery(key: string, incarnation: string, state: McpWebhookDeliveryState): Promise<void>;
  /** Until when the endpoint consented to deliveries for this principal (verification), if it did. */
  verifiedUntil(principal: string, url: string): Promise<number | undefined>;
  /** Remembers an endpoint's consent for this principal until `until` (ms since the epoch). */
  markVerified(principal: string, url: string, until: number): Promise<void>;
  /** Notes that an event at `position` is being delivered to the subscription (acknowledged or abandoned later). */
  trackPending(key: string, position: string): Promise<void>;
  /** The event at `position` was acknowledged or abandoned. */
  settlePending(key: string, position: string): Promise<void>;
  /** The oldest position still being delivered and how many are, for the watermark the next delivery carries. */
  pending(key: string): Promise<{ readonly oldest?: string; readonly count: number }>;
}

/** Injection token of the webhook subscription store (the `events.webhooks.store` option, or the in-memory default). */
export const MCP_WEBHOOK_SUBSCRIPTION_STORE = Symbol('nest-mcp:webhook-subscription-store');
