import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { CACHE_MANAGER, CACHE_TTL_METADATA } from '@nestjs/cache-manager';
import type { Cache } from 'cache-manager';
import { createHash, randomUUID } from 'node:crypto';
import { from, type Observable, of } from 'rxjs';
import { concatMap } from 'rxjs/operators';
import { MCP_CONTEXT_TYPE } from '../context/mcp-execution-context.js';
import { McpResourceContext } from '../context/mcp-resource.context.js';
import type { MrtrContext } from '../context/mrtr.context.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { canonicalJson } from '../protocol/canonical-json.util.js';
import { MCP_EVENT_BUS, type McpEventBus } from '../protocol/mcp-event-bus.interface.js';
import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';
import { MCP_CACHE_KEY_PREFIX, MCP_CACHE_SCOPE_METADATA } from './mcp-cache.constants.js';

/** What one call is cached under. */
interface CachePlan {
  readonly entryKey: string;
  /** The generation markers the entry must match: the global one, then the resource's own (reads only). */
  readonly generationKeys: readonly string[];
  /** `@CacheTTL`, or undefined: the store's default. */
  readonly ttlMs?: number;
  readonly shared: boolean;
  readonly resource?: McpResourceContext;
}

/** An entry as stored (a JSON string, the same on every store): generations, expiry (when known), value, bytes or not. */
interface CacheEnvelope {
  g: string[];
  e?: number;
  v: unknown;
  b?: true;
}

const GLOBAL_GENERATION = `${MCP_CACHE_KEY_PREFIX}:gen`;
const resourceGeneration = (uri: string) => `${MCP_CACHE_KEY_PREFIX}:gen:${sha256(uri)}`;
/**
 * How long a generation marker lives after it was last written. Any lifetime is safe: a marker that expired (or that
 * the store evicted) is replaced by a fresh one on the next read, which no entry was stored under, so losing a marker
 * costs misses and never brings an older entry back. Bounded so that markers of resources updated once do not pile up.
 */
const MARKER_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Caching of MCP calls on `@nestjs/cache-manager` (issue #30). The stock `CacheInterceptor` keys on the URL of GET
 * requests, so on an MCP call (a POST, or no HTTP at all) it caches nothing, or — with `@CacheKey` — one entry for
 * every caller and every argument. Register this one globally (`APP_INTERCEPTOR`) or with `@UseInterceptors`; it
 * handles MCP calls only and lets everything else through, so the stock one keeps caching your HTTP routes beside it.
 *
 * On an MCP call it caches what the handler returns, for:
 * - tools whose definition says `annotations.readOnlyHint: true` (never a task tool), `prompts/get`, `resources/read`;
 * - keyed by the handler's name (a read: its concrete URI), the canonical JSON of its arguments, and the caller
 *   (`McpExecutionContext.getCallerKey()`), unless `@McpCacheScope('public')` shares one entry between callers;
 * - for `@CacheTTL()` (method, else class; a number or a function of the context, as stock), else the cache's `ttl`;
 * - not when the result came from input the client gave during the call (multi-round answers, a 2025-11-25 live
 *   request), nor a failure, an `input_required` round or an empty value.
 *
 * Invalidation: `McpPublisher.resourceUpdated(uri)` on any replica drops every cached read of `uri`, for every caller;
 * a `resync` of the event bus drops everything. It is a generation marker in the cache itself (one `mget` reads the
 * markers with the entry), so a Redis store (Keyv with `@keyv/redis`) is shared and invalidated across replicas.
 * A read's `ttlMs` hint never exceeds what the server's copy still lives, and a per-caller entry answers
 * `cacheScope: "private"`.
 *
 * @example
 * ```ts
 * providers: [{ provide: APP_INTERCEPTOR, useClass: McpCacheInterceptor }]
 * ```
 */
@Injectable()
export class McpCacheInterceptor implements NestInterceptor, OnModuleDestroy {
  private readonly logger = new Logger('McpCache');
  private readonly stopListening: () => void;
  /** The markers this replica is writing: calls wait for them, so a change published here is never read stale here. */
  private invalidating: Promise<unknown> = Promise.resolve();

  /** @internal Created by Nest's injector, from the cache (`CacheModule`) and nest-mcp's registry and event bus. */
  constructor(
    @Inject(CACHE_MANAGER) private readonly cache: Cache,
    private readonly reflector: Reflector,
    private readonly registry: McpRegistry,
    @Inject(MCP_EVENT_BUS) bus: McpEventBus,
  ) {
    this.stopListening = bus.subscribe((event) => this.onChange(event));
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) return next.handle();
    const call = context.getArgByIndex<MrtrContext>(3);
    const plan = await this.planFor(context, call);
    if (!plan) return next.handle();
    await this.invalidating;
    let generations: string[];
    try {
      const [entry, ...markers] = await this.cache.mget<string>([plan.entryKey, ...plan.generationKeys]);
      generations = await this.generationsOf(plan, markers);
      const hit = entry === undefined ? undefined : current(entry, generations);
      if (hit) {
        if (plan.resource)
          plan.resource.servedCache = { remainingMs: await this.remainingMs(plan, hit.e), shared: plan.shared };
        return of(hit.b ? Buffer.from(hit.v as string, 'base64') : hit.v);
      }
    } catch (error) {
      // A cache that cannot be read serves nothing from it: the handler runs.
      this.logger.warn(`Cannot read the cache: ${(error as Error).message}`);
      return next.handle();
    }
    return next.handle().pipe(concatMap((value) => from(this.store(plan, generations, call, value))));
  }

  onModuleDestroy(): void {
    this.stopListening();
  }

  /** Where and how long this call is cached, or undefined when it is not cacheable. */
  private async planFor(context: ExecutionContext, call: MrtrContext): Promise<CachePlan | undefined> {
    if (call.taskId !== undefined || call.usedInput || call.requestState !== undefined) return undefined;
    const name = call.handlerName();
    if (call.method === 'tools/call') {
      const tool = this.registry.getTool(name);
      if (tool?.definition.annotations?.readOnlyHint !== true || tool.task !== undefined) return undefined;
    } else if (call.method !== 'prompts/get' && call.method !== 'resources/read') {
      return undefined;
    }
    const targets = [context.getHandler(), context.getClass()];
    const shared = this.reflector.getAllAndOverride<string | undefined>(MCP_CACHE_SCOPE_METADATA, targets) === 'public';
    const resource = call instanceof McpResourceContext ? call : undefined;
    const key = resource ? resource.uri : name;
    const input = resource ? {} : JSON.parse(JSON.stringify(context.getArgByIndex(2) ?? {}));
    const owner = shared ? '*' : call.callerKey;
    return {
      entryKey: `${MCP_CACHE_KEY_PREFIX}:${call.method}:${sha256(canonicalJson([key, owner, input]))}`,
      generationKeys: resource ? [GLOBAL_GENERATION, resourceGeneration(resource.uri)] : [GLOBAL_GENERATION],
      ttlMs: await this.ttlOf(context, targets),
      shared,
      resource,
    };
  }

  /** `@CacheTTL` of the method, else of the class (a number or a function of the context); undefined: the store's. */
  private async ttlOf(
    context: ExecutionContext,
    targets: Parameters<Reflector['getAllAndOverride']>[1],
  ): Promise<number | undefined> {
    const declared = this.reflector.getAllAndOverride<
      number | ((context: ExecutionContext) => number | Promise<number>) | undefined
    >(CACHE_TTL_METADATA, targets);
    const ttl = typeof declared === 'function' ? await declared(context) : declared;
    return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : undefined;
  }

  /** How long the entry still lives: from its envelope, else (the store's default TTL) from the store. */
  private async remainingMs(plan: CachePlan, expiresAt: number | undefined): Promise<number> {
    const expiry = expiresAt ?? (await this.cache.ttl(plan.entryKey));
    return expiry === undefined ? Number.POSITIVE_INFINITY : Math.max(0, expiry - Date.now());
  }

  /**
   * The current generation of each marker; a marker that is not in the store (never written, expired or evicted) gets a
   * fresh one first, so that whatever was stored under the one that went away is never current again.
   */
  private async generationsOf(plan: CachePlan, markers: ReadonlyArray<string | undefined>): Promise<string[]> {
    const generations = markers.map((marker) => marker ?? randomUUID());
    const minted = plan.generationKeys.flatMap((key, index) =>
      markers[index] === undefined ? [{ key, value: generations[index], ttl: MARKER_TTL_MS }] : [],
    );
    if (minted.length > 0) await this.cache.mset(minted);
    return generations;
  }

  /** Stores what the handler returned under the generations read before it ran (a change since then wins). */
  private async store(plan: CachePlan, generations: string[], call: MrtrContext, value: unknown): Promise<unknown> {
    if (value === undefined || value === null || call.usedInput) return value;
    const bytes = value instanceof Uint8Array;
    const envelope: CacheEnvelope = { g: generations, v: bytes ? Buffer.from(value).toString('base64') : value };
    if (plan.ttlMs !== undefined) envelope.e = Date.now() + plan.ttlMs;
    if (bytes) envelope.b = true;
    let text: string;
    try {
      text = JSON.stringify(envelope);
    } catch {
      return value; // not JSON: not cacheable
    }
    try {
      await this.cache.set(plan.entryKey, text, plan.ttlMs);
      if (plan.resource)
        plan.resource.servedCache = { remainingMs: await this.remainingMs(plan, envelope.e), shared: plan.shared };
    } catch (error) {
      this.logger.warn(`Cannot write the cache: ${(error as Error).message}`);
    }
    return value;
  }

  private onChange(event: McpChangeEvent): void {
    const marker =
      event.type === 'resourceUpdated'
        ? resourceGeneration(event.uri)
        : event.type === 'resync'
          ? GLOBAL_GENERATION
          : undefined;
    if (!marker) return;
    const written = this.cache.set(marker, randomUUID(), MARKER_TTL_MS).catch((error: Error) => {
      this.logger.warn(`Cannot invalidate the cache after ${event.type}: ${error.message}`);
    });
    this.invalidating = Promise.all([this.invalidating, written]);
  }
}

/** The entry, when it is still current: the generations it was stored under are the current ones, and it has not expired. */
function current(text: string, generations: readonly string[]): CacheEnvelope | undefined {
  const entry = JSON.parse(text) as CacheEnvelope;
  if ((entry.e !== undefined && entry.e <= Date.now()) || entry.g.length !== generations.length) return undefined;
  return entry.g.every((generation, index) => generation === generations[index]) ? entry : undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
