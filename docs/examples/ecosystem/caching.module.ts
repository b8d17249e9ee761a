import { Injectable, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { CacheModule, CacheTTL } from '@nestjs/cache-manager';
import { createKeyv } from '@keyv/redis';
import {
  McpArgs,
  McpCtx,
  McpModule,
  McpPrompt,
  McpPublisher,
  McpResource,
  McpResourceTemplate,
  McpTool,
  type McpResourceContext,
  type McpToolContext,
} from 'nest-mcp';
import { McpCacheInterceptor, McpCacheScope } from 'nest-mcp/cache-manager';
import { McpRedis, McpRedisModule } from 'nest-mcp-redis';

/** The catalog the handlers read, and how often they really ran (what a cache saves). */
@Injectable()
export class Catalog {
  readonly prices = new Map<string, number>([
    ['apple', 120],
    ['pear', 90],
  ]);
  readonly runs = { price: 0, reserve: 0, skus: 0, item: 0, pitch: 0 };
}

// #region docs:cached-handlers
@Injectable()
export class CatalogTools {
  constructor(
    private readonly catalog: Catalog,
    private readonly publisher: McpPublisher,
  ) {}

  /** Read-only: cached per caller and arguments, for 30 s. */
  @CacheTTL(30_000)
  @McpTool({
    name: 'price',
    description: 'The price of a SKU',
    input: { type: 'object', properties: { sku: { type: 'string' }, currency: { type: 'string' } }, required: ['sku'] },
    annotations: { readOnlyHint: true },
  })
  price(args: { sku: string; currency?: string }, ctx: McpToolContext) {
    this.catalog.runs.price++;
    return {
      sku: args.sku,
      cents: this.catalog.prices.get(args.sku) ?? 0,
      currency: args.currency ?? 'EUR',
      quotedFor: ctx.principal ?? null,
    };
  }

  /** Not read-only: never cached, whatever the interceptor. */
  @McpTool({
    name: 'reserve',
    description: 'Reserves a SKU',
    input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  })
  reserve(args: { sku: string }) {
    this.catalog.runs.reserve++;
    return `reserved ${args.sku}`;
  }

  /** The same for everyone: one entry shared by every caller, dropped when the list changes. */
  @McpCacheScope('public')
  @CacheTTL(10_000)
  @McpResource({ uri: 'catalog://skus', name: 'skus', mimeType: 'application/json' })
  skus() {
    this.catalog.runs.skus++;
    return JSON.stringify([...this.catalog.prices.keys()]);
  }

  /** Per caller (the default), for the cache's own `ttl`. */
  @McpResourceTemplate({ uriTemplate: 'catalog://skus/{sku}', name: 'sku', mimeType: 'application/json' })
  item(@McpArgs('sku') sku: string, @McpCtx() ctx: McpResourceContext) {
    this.catalog.runs.item++;
    return JSON.stringify({ sku, cents: this.catalog.prices.get(sku) ?? 0, for: ctx.principal ?? null });
  }

  @McpPrompt({ name: 'pitch', description: 'A sales pitch for a SKU', arguments: [{ name: 'sku', required: true }] })
  pitch(@McpArgs('sku') sku: string) {
    this.catalog.runs.pitch++;
    return `Sell ${sku} for ${this.catalog.prices.get(sku) ?? 0} cents.`;
  }

  /** A change: the cached reads of the changed resources go, on every replica. */
  async setPrice(sku: string, cents: number): Promise<void> {
    this.catalog.prices.set(sku, cents);
    await this.publisher.resourceUpdated('catalog://skus');
    await this.publisher.resourceUpdated(`catalog://skus/${sku}`);
  }
}
// #endregion docs:cached-handlers

const principal = (request: unknown) => (request as { headers: Record<string, string | undefined> }).headers['x-user'];

// #region docs:caching-module
@Module({
  imports: [
    CacheModule.register({ isGlobal: true, ttl: 60_000 }),
    McpModule.forRoot({
      name: 'catalog',
      version: '1.0.0',
      principal,
      cacheHints: { resourcesRead: { ttlMs: 120_000, cacheScope: 'public' } },
    }),
  ],
  providers: [Catalog, CatalogTools, { provide: APP_INTERCEPTOR, useClass: McpCacheInterceptor }],
})
export class CachedCatalogModule {}
// #endregion docs:caching-module

/** One replica of the cached catalog: entries in Redis (Keyv), changes on the Redis event bus. */
export function cachedReplicaModule(redisUrl: string, stateKeys: string[]) {
  // #region docs:caching-redis
  @Module({
    imports: [
      CacheModule.registerAsync({
        isGlobal: true,
        useFactory: () => ({ stores: [createKeyv(redisUrl)], ttl: 60_000 }),
      }),
      McpRedisModule.forRoot({ url: redisUrl }),
      McpModule.forRootAsync({
        inject: [McpRedis],
        useFactory: (redis: McpRedis) =>
          redis.serverOptions({ name: 'catalog', version: '1.0.0', principal, requestState: { keys: stateKeys } }),
      }),
    ],
    providers: [Catalog, CatalogTools, { provide: APP_INTERCEPTOR, useClass: McpCacheInterceptor }],
  })
  class CachedReplicaModule {}
  // #endregion docs:caching-redis
  return CachedReplicaModule;
}
