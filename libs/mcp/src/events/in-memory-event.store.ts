import { randomBytes } from 'node:crypto';
import type {
  McpEventReadFrom,
  McpEventReadOptions,
  McpEventReadResult,
  McpEventRetention,
  McpEventStore,
  McpLoggedEvent,
  McpStoredEvent,
} from '../protocol/event-store.interface.js';

/** Digits of a sequence number in a position: fixed, so that positions compare as strings. */
const SEQ_DIGITS = 16;

interface TypeLog {
  /** Kept events, oldest first; `seq` grows by one per append. */
  readonly entries: Array<{ seq: number; event: McpStoredEvent }>;
  /** The sequence number of the next append (the first is 1; 0 stands for "before the first"). */
  nextSeq: number;
}

/**
 * The default replay log: one bounded log per event type in this process. Positions are `<epoch>:<sequence>`, the
 * epoch random per process, so a cursor from before a restart (or from another replica) is recognised as belonging to
 * a log that is gone: its reader resumes at the oldest kept event with `truncated: true`. Each type keeps at most its
 * retention (count on append, age on every read).
 */
export class InMemoryEventStore implements McpEventStore {
  private readonly epoch = randomBytes(6).toString('hex');
  private readonly logs = new Map<string, TypeLog>();
  private readonly listeners = new Set<(logged: McpLoggedEvent) => void>();

  async append(event: McpStoredEvent, retention: McpEventRetention | undefined): Promise<string | null> {
    let position: string | null = null;
    if (retention) {
      const log = this.log(event.name);
      const seq = log.nextSeq++;
      log.entries.push({ seq, event });
      if (log.entries.length > retention.maxEvents) log.entries.splice(0, log.entries.length - retention.maxEvents);
      position = this.position(seq);
    }
    const logged: McpLoggedEvent = { position, event };
    for (const listener of this.listeners) listener(logged);
    return position;
  }

  async head(name: string): Promise<string> {
    return this.position((this.logs.get(name)?.nextSeq ?? 1) - 1);
  }

  async read(name: string, from: McpEventReadFrom, options: McpEventReadOptions): Promise<McpEventReadResult> {
    const log = this.log(name);
    this.trim(log, options.retention);
    const oldest = log.entries[0]?.seq ?? log.nextSeq;
    const asked = this.seqOf(from.position);
    // Another epoch (a restarted store) or a position past the end: where the log stands now is unknown to it.
    const known = asked !== undefined && asked < log.nextSeq;
    let start = known ? asked + (from.inclusive ? 0 : 1) : oldest;
    let truncated = !known || start < oldest;
    if (start < oldest) start = oldest;
    let index = log.entries.findIndex((entry) => entry.seq >= start);
    if (index < 0) index = log.entries.length;
    if (options.notBefore !== undefined) {
      while (index < log.entries.length && log.entries[index].event.appendedAt < options.notBefore) {
        index++;
        truncated = true;
      }
    }
    const taken = log.entries.slice(index, index + options.limit);
    const events = taken.map((entry): McpLoggedEvent => ({ position: this.position(entry.seq), event: entry.event }));
    const last = taken.at(-1);
    const resumed = index < log.entries.length ? log.entries[index].seq : log.nextSeq;
    return {
      events,
      truncated,
      next: last
        ? { position: this.position(last.seq), inclusive: false }
        : { position: this.position(resumed - 1), inclusive: false },
      more: index + taken.length < log.entries.length,
    };
  }

  subscribe(listener: (logged: McpLoggedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private log(name: string): TypeLog {
    let log = this.logs.get(name);
    if (!log) this.logs.set(name, (log = { entries: [], nextSeq: 1 }));
    return log;
  }

  /** Drops what the retention no longer keeps: older than its window, beyond its count. */
  private trim(log: TypeLog, retention: McpEventRetention): void {
    const horizon = Date.now() - retention.windowMs;
    let drop = Math.max(0, log.entries.length - retention.maxEvents);
    while (drop < log.entries.length && log.entries[drop].event.appendedAt < horizon) drop++;
    if (drop > 0) log.entries.splice(0, drop);
  }

  private position(seq: number): string {
    return `${this.epoch}:${String(seq).padStart(SEQ_DIGITS, '0')}`;
  }

  private seqOf(position: string): number | undefined {
    const [epoch, digits] = position.split(':');
    if (epoch !== this.epoch || digits === undefined || !/^\d+$/.test(digits)) return undefined;
    return Number(digits);
  }
}
