import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';
import { MCP_EVENT_BUS, type McpEventBus } from '../protocol/mcp-event-bus.interface.js';
import {
  AdmissionQuota,
  type AdmissionKey,
  type AdmissionLease,
  type AdmissionRefusal,
} from '../protocol/admission-quota.js';
import { LegacySession } from './legacy-session.js';
import type { LegacyHandshake } from './legacy-wire.service.js';
import { SessionMemoryBudget } from './session-memory.budget.js';
import { CHANGE_NOTIFICATIONS } from '../subscriptions/subscription-filter.js';
import { MCP_LISTENER_VISIBILITY, type McpListenerVisibility } from '../protocol/listener-visibility.interface.js';
import type { Subscription } from 'rxjs';

/** Why `initialize` got no session: a count cap (`total`, `principal`, `address`) or the `maxSessionBytes` budget. */
export type SessionRefusal = AdmissionRefusal | 'memory';

/**
 * The 2025-11-25 sessions of this process: created by `initialize`, ended by DELETE, idle expiry or shutdown, and
 * capped — in number (`maxSessions`, and fair shares per principal and per remote address) and in the bytes they
 * hold together (`maxSessionBytes`); every end gives the slot and the bytes back. Change events from the bus reach
 * every initialized session's GET stream (list changes, untagged) or the sessions subscribed to a resource; a
 * `resync` (the bus may have missed events) tells every session the list changes of what this server serves and an
 * update of each URI it subscribed to. Sessions live in memory: the legacy wire needs sticky routing across replicas.
 */
@Injectable()
export class McpSessionStore implements OnModuleDestroy {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly leases = new Map<string, AdmissionLease>();
  private readonly quota: AdmissionQuota;
  private readonly budget: SessionMemoryBudget;
  private readonly sweeper: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly registryChanges?: Subscription;

  constructor(
    private readonly options: McpResolvedOptions,
    @Inject(MCP_EVENT_BUS) bus: McpEventBus,
    @Optional() private readonly registry?: McpRegistry,
    @Optional() @Inject(MCP_LISTENER_VISIBILITY) visibility?: McpListenerVisibility,
    @Optional() private readonly telemetry?: McpTelemetry,
  ) {
    this.quota = new AdmissionQuota({
      total: options.maxSessions,
      perPrincipal: options.maxSessionsPerPrincipal,
      perAddress: options.maxSessionsPerAddress,
    });
    this.budget = new SessionMemoryBudget(options.maxSessionBytes);
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(options.sessionIdleMs / 2, 60_000));
    this.sweeper.unref();
    this.unsubscribe = bus.subscribe((event) => this.fanOut(event));
    // What a subscriber may hear depends on the resources and templates: judge again when they change.
    if (visibility) {
      this.registryChanges = registry?.changes$.subscribe((kind) => {
        if (kind !== 'resources' && kind !== 'resourceTemplates') return;
        for (const session of this.sessions.values()) session.reviewVisibility(visibility);
      });
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Bytes the sessions hold together, as counted for `maxSessionBytes`. */
  get heldBytes(): number {
    return this.budget.held;
  }

  /**
   * A new session for what `initialize` negotiated, bound to the caller's principal; or the limit that refuses it.
   * An anonymous caller is counted by its remote address.
   */
  create(handshake: LegacyHandshake, caller: AdmissionKey): { session: LegacySession } | { refused: SessionRefusal } {
    this.expireIdle();
    const admission = this.quota.tryAcquire(caller);
    if ('refused' in admission) return admission;
    if (!this.budget.tryReserve(LegacySession.baseBytes(handshake.clientInfo))) {
      admission.lease.release();
      return { refused: 'memory' };
    }
    const session = new LegacySession(
      handshake.protocolVersion,
      handshake.capabilities,
      handshake.clientInfo,
      caller.principal,
      this.budget,
      this.options.sessionRoute,
    );
    this.sessions.set(session.id, session);
    this.leases.set(session.id, admission.lease);
    return { session };
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
    this.leases.get(id)?.release();
    this.leases.delete(id);
    session.close(reason);
    this.telemetry?.recordSession(session.openedAt, session.protocolVersion);
    return true;
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    this.unsubscribe();
    this.registryChanges?.unsubscribe();
    for (const id of [...this.sessions.keys()]) this.delete(id, 'The server is shutting down');
  }

  private expireIdle(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) {
      if (now - session.lastActivity > this.options.sessionIdleMs) this.delete(id, 'The session expired');
    }
  }

  private fanOut(event: McpChangeEvent): void {
    if (event.type === 'resync') return this.resync();
    for (const session of this.sessions.values()) session.deliverChange(event, this.options.authorizeDelivery);
  }

  /**
   * Events may have been missed: every initialized session hears a list change for each kind this server serves
   * (every kind when the registry is unknown) and an update of each URI it subscribed to, only those its subscriber
   * may read while anything is hidden from it (`LegacySession.resyncs`). Like the resync itself, these reveal nothing new, so neither an audience nor
   * `authorizeDelivery` applies.
   */
  private resync(): void {
    const lists = this.listChangeMethods();
    for (const session of this.sessions.values()) {
      if (!session.initialized || session.isClosed) continue;
      for (const method of lists) session.sendOnStream({ jsonrpc: '2.0', method });
      for (const uri of session.subscriptions) {
        if (!session.resyncs(uri)) continue;
        session.sendOnStream({ jsonrpc: '2.0', method: CHANGE_NOTIFICATIONS.resourceUpdated, params: { uri } });
      }
    }
  }

  private listChangeMethods(): string[] {
    const registry = this.registry;
    if (!registry)
      return [
        CHANGE_NOTIFICATIONS.toolsListChanged,
        CHANGE_NOTIFICATIONS.promptsListChanged,
        CHANGE_NOTIFICATIONS.resourcesListChanged,
      ];
    const methods: string[] = [];
    if (registry.listTools().length > 0) methods.push(CHANGE_NOTIFICATIONS.toolsListChanged);
    if (registry.listPrompts().length > 0) methods.push(CHANGE_NOTIFICATIONS.promptsListChanged);
    if (registry.listResources().length > 0 || registry.listResourceTemplates().length > 0) {
      methods.push(CHANGE_NOTIFICATIONS.resourcesListChanged);
    }
    return methods;
  }
}
