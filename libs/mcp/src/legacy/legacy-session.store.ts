import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { McpChangeEvent } from '../subscriptions/mcp-event.interface.js';
import { MCP_EVENT_BUS, type McpEventBus } from '../subscriptions/mcp-event-bus.interface.js';
import { LegacySession } from './legacy-session.js';

/**
 * The 2025-11-25 sessions of this process: created by `initialize`, ended by DELETE, idle expiry or shutdown, and
 * capped. Change events from the bus reach every initialized session's GET stream (list changes, untagged) or the
 * sessions subscribed to a resource. Sessions live in memory: the legacy wire needs sticky routing across replicas.
 */
@Injectable()
export class McpSessionStore implements OnModuleDestroy {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly options: McpResolvedOptions,
    @Inject(MCP_EVENT_BUS) bus: McpEventBus,
  ) {
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(options.sessionIdleMs / 2, 60_000));
    this.sweeper.unref();
    this.unsubscribe = bus.subscribe((event) => this.fanOut(event));
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session, or undefined when the cap is reached. */
  create(...args: ConstructorParameters<typeof LegacySession>): LegacySession | undefined {
    this.expireIdle();
    if (this.sessions.size >= this.options.maxSessions) return undefined;
    const session = new LegacySession(...args);
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with that id, bound to the same principal; undefined otherwise (answered 404). */
  get(id: string, principal: string | undefined): LegacySession | undefined {
    const session = this.sessions.get(id);
    if (!session || session.principal !== principal) return undefined;
    if (Date.now() - session.lastActivity > this.options.sessionIdleMs) {
      this.delete(id, 'The session expired');
      return undefined;
    }
    return session;
  }

  delete(id: string, reason = 'The session ended'): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    session.close(reason);
    return true;
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    this.unsubscribe();
    for (const id of [...this.sessions.keys()]) this.delete(id, 'The server is shutting down');
  }

  private expireIdle(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) {
      if (now - session.lastActivity > this.options.sessionIdleMs) this.delete(id, 'The session expired');
    }
  }

  private fanOut(event: McpChangeEvent): void {
    for (const session of this.sessions.values()) session.deliverChange(event);
  }
}
