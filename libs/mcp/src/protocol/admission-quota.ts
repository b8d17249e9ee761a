import { isIPv6 } from 'node:net';

/** Limits of one kind of resource (sessions, listen streams, calls in flight). */
export interface AdmissionLimits {
  /** Most held at once by everyone together. */
  readonly total: number;
  /** Most held at once by one principal (callers with a principal). */
  readonly perPrincipal: number;
  /** Most held at once from one remote address (callers without a principal). */
  readonly perAddress: number;
}

/** Who asks: the authenticated principal, and the remote address the request came from. */
export interface AdmissionKey {
  readonly principal?: string;
  readonly address?: string;
}

/** A granted slot; `release` hands it back (calling it again does nothing). */
export interface AdmissionLease {
  release(): void;
}

/** Which limit refused a request. */
export type AdmissionRefusal = 'total' | 'principal' | 'address';

/** The answer of {@link AdmissionQuota.tryAcquire}: a lease, or the limit that refused. */
export type AdmissionResult = { readonly lease: AdmissionLease } | { readonly refused: AdmissionRefusal };

/**
 * Fair shares of a bounded resource: a total cap, and a cap per caller so that one client cannot take everything.
 * A caller with a principal is counted by principal; an anonymous one by its remote address (an authenticated caller
 * behind a shared proxy address is not throttled by its neighbours). Counts only: the quota holds no reference to
 * what it admits, and a key's entry disappears when its count returns to zero.
 */
export class AdmissionQuota {
  private held = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** Slots held right now. */
  get size(): number {
    return this.held;
  }

  /** How many slots this caller holds. */
  heldBy(key: AdmissionKey): number {
    const caller = callerKey(key);
    return caller === undefined ? 0 : (this.byCaller.get(caller) ?? 0);
  }

  /** Takes a slot for this caller, or says which limit refuses it. */
  tryAcquire(key: AdmissionKey): AdmissionResult {
    if (this.held >= this.limits.total) return { refused: 'total' };
    const caller = callerKey(key);
    if (caller !== undefined) {
      const count = this.byCaller.get(caller) ?? 0;
      const limit = key.principal !== undefined ? this.limits.perPrincipal : this.limits.perAddress;
      if (count >= limit) return { refused: key.principal !== undefined ? 'principal' : 'address' };
      this.byCaller.set(caller, count + 1);
    }
    this.held++;
    let released = false;
    return {
      lease: {
        release: () => {
          if (released) return;
          released = true;
          this.held--;
          if (caller === undefined) return;
          const count = (this.byCaller.get(caller) ?? 1) - 1;
          if (count <= 0) this.byCaller.delete(caller);
          else this.byCaller.set(caller, count);
        },
      },
    };
  }
}

/**
 * The key one caller is counted by: `p:<principal>`, or for an anonymous caller `a:<address group>`. Principals and
 * addresses live in separate key spaces, so a principal named like an address is not confused with it.
 */
export function callerKey(key: AdmissionKey): string | undefined {
  if (key.principal !== undefined) return `p:${key.principal}`;
  if (key.address !== undefined) return `a:${addressGroup(key.address)}`;
  return undefined;
}

/**
 * The unit an anonymous caller is counted by: an IPv4 address (IPv4-mapped IPv6 included), or the /64 prefix of an
 * IPv6 address — one client is routinely given a whole /64 and could rotate through it to escape a per-address cap.
 */
export function addressGroup(address: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && lower.includes('.')) return lower.slice(7);
  if (!isIPv6(lower)) return lower;
  const zoneless = lower.split('%', 1)[0];
  const [head, tail = ''] = zoneless.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = zoneless.includes('::') && tail !== '' ? tail.split(':') : [];
  const missing = Math.max(0, 8 - headGroups.length - tailGroups.length);
  const groups = [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
