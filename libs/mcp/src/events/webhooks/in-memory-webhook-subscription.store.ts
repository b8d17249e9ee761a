import type {
  McpWebhookDeliveryState,
  McpWebhookSubscriptionRecord,
  McpWebhookSubscriptionStore,
} from '../../protocol/webhook-subscription-store.interface.js';

/** Most endpoint consents remembered at once (the oldest is forgotten first). */
const MAX_CONSENTS = 10_000;

/**
 * The default webhook subscription store: this process only, soft state (SEP-3415 allows it for finite TTLs: clients
 * refresh, and a refresh after a restart creates the subscription again). Expired subscriptions are dropped when they
 * are next looked at.
 */
export class InMemoryWebhookSubscriptionStore implements McpWebhookSubscriptionStore {
  readonly durable = false;
  private readonly records = new Map<string, McpWebhookSubscriptionRecord>();
  private readonly byName = new Map<string, Set<string>>();
  private readonly consents = new Map<string, number>();
  private readonly inFlight = new Map<string, Set<string>>();

  async get(key: string): Promise<McpWebhookSubscriptionRecord | undefined> {
    return this.live(key);
  }

  async put(record: McpWebhookSubscriptionRecord): Promise<void> {
    const previous = this.records.get(record.key);
    if (previous && previous.incarnation !== record.incarnation) this.inFlight.delete(record.key);
    // A refresh keeps the delivery state: an outcome recorded since the refresh read the record is not lost.
    this.records.set(
      record.key,
      previous?.incarnation === record.incarnation ? { ...record, delivery: previous.delivery } : record,
    );
    let keys = this.byName.get(record.name);
    if (!keys) this.byName.set(record.name, (keys = new Set()));
    keys.add(record.key);
  }

  async delete(key: string): Promise<boolean> {
    const record = this.records.get(key);
    if (!record) return false;
    this.records.delete(key);
    this.byName.get(record.name)?.delete(key);
    this.inFlight.delete(key);
    return true;
  }

  async listByName(name: string): Promise<readonly McpWebhookSubscriptionRecord[]> {
    const records: McpWebhookSubscriptionRecord[] = [];
    for (const key of [...(this.byName.get(name) ?? [])]) {
      const record = this.live(key);
      if (record) records.push(record);
    }
    return records;
  }

  async countByPrincipal(principal: string): Promise<number> {
    let count = 0;
    for (const key of [...this.records.keys()]) if (this.live(key)?.principal === principal) count++;
    return count;
  }

  async recordDelivery(key: string, incarnation: string, state: McpWebhookDeliveryState): Promise<void> {
    const record = this.records.get(key);
    if (record?.incarnation === incarnation) this.records.set(key, { ...record, delivery: state });
  }

  async verifiedUntil(principal: string, url: string): Promise<number | undefined> {
    const until = this.consents.get(consentKey(principal, url));
    return until !== undefined && until > Date.now() ? until : undefined;
  }

  async markVerified(principal: string, url: string, until: number): Promise<void> {
    const key = consentKey(principal, url);
    this.consents.delete(key);
    if (this.consents.size >= MAX_CONSENTS) this.consents.delete(this.consents.keys().next().value as string);
    this.consents.set(key, until);
  }

  async trackPending(key: string, position: string): Promise<void> {
    let positions = this.inFlight.get(key);
    if (!positions) this.inFlight.set(key, (positions = new Set()));
    positions.add(position);
  }

  async settlePending(key: string, position: string): Promise<void> {
    this.inFlight.get(key)?.delete(position);
  }

  async pending(key: string): Promise<{ oldest?: string; count: number }> {
    const positions = this.inFlight.get(key);
    if (!positions || positions.size === 0) return { count: 0 };
    let oldest: string | undefined;
    for (const position of positions) if (oldest === undefined || position < oldest) oldest = position;
    return { oldest, count: positions.size };
  }

  /** The record, unless it expired (then it is dropped). */
  private live(key: string): McpWebhookSubscriptionRecord | undefined {
    const record = this.records.get(key);
    if (record && record.expiresAt !== null && record.expiresAt <= Date.now()) {
      void this.delete(key);
      return undefined;
    }
    return record;
  }
}

/** A principal never holds a line break; a URL may, so it goes last. */
function consentKey(principal: string, url: string): string {
  return `${principal}\n${url}`;
}
