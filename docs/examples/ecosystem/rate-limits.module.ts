import { Injectable, Module, UseGuards } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SkipThrottle, Throttle, ThrottlerGuard, ThrottlerModule, type ThrottlerStorage } from '@nestjs/throttler';
import { McpModule, McpTool, mcpThrottlerOptions, type McpToolContext } from 'nest-mcp';

// #region docs:rate-limited-tools
@Injectable()
export class SearchTools {
  /** Counted by every throttler with its defaults: per caller, per tool. */
  @McpTool({
    name: 'search',
    description: 'Searches the catalog',
    input: { type: 'object', properties: { query: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  })
  search(args: { query?: string }) {
    return { hits: [`${args.query ?? ''}-1`, `${args.query ?? ''}-2`] };
  }

  /** Expensive: one call a minute per caller, whatever the defaults say. */
  @Throttle({ default: { limit: 1, ttl: 60_000 } })
  @McpTool({ name: 'export_all', description: 'Exports the whole catalog' })
  exportAll() {
    return 'catalog.csv';
  }

  /** Never counted. */
  @SkipThrottle()
  @McpTool({ name: 'health', description: 'Says the catalog is up' })
  health(_args: unknown, ctx: McpToolContext) {
    return `up (${ctx.principal ?? 'anonymous'})`;
  }
}
// #endregion docs:rate-limited-tools

/** The module options of the example: who the caller is (a header, for the example), and the limits. */
export interface RateLimitOptions {
  /** Calls per caller and tool in each window. */
  limit: number;
  /** The window, in milliseconds. */
  ttl: number;
  /** Where the counts live; default: this process's memory. */
  storage?: ThrottlerStorage;
}

/** The rate-limited server of the example, with the throttler's guard registered globally (`APP_GUARD`). */
export function rateLimitedAppModule({ limit, ttl, storage }: RateLimitOptions) {
  // #region docs:rate-limits-module
  @Module({
    imports: [
      // `mcpThrottlerOptions`: counts MCP calls per caller (principal, else address) and skips the endpoint's own
      // HTTP route, whose calls are counted one by one.
      ThrottlerModule.forRoot({ throttlers: [{ name: 'default', limit, ttl }], storage, ...mcpThrottlerOptions }),
      McpModule.forRoot({
        name: 'catalog',
        version: '1.0.0',
        principal: (request) => (request as { headers: Record<string, string | undefined> }).headers['x-user'],
      }),
    ],
    providers: [SearchTools, { provide: APP_GUARD, useClass: ThrottlerGuard }],
  })
  class RateLimitedAppModule {}
  // #endregion docs:rate-limits-module
  return RateLimitedAppModule;
}

// #region docs:per-provider-guard
/** Only this provider's handlers are limited, by the guard on the class; named throttlers apply to it. */
@Injectable()
@UseGuards(ThrottlerGuard)
@Throttle({ burst: { limit: 2, ttl: 1_000 } })
export class ReportTools {
  @McpTool({ name: 'daily_report', description: 'Builds the daily report' })
  dailyReport() {
    return 'report';
  }
}

@Module({
  imports: [
    ThrottlerModule.forRoot({
      throttlers: [
        { name: 'burst', limit: 2, ttl: 1_000 },
        { name: 'sustained', limit: 20, ttl: 60_000 },
      ],
      ...mcpThrottlerOptions,
    }),
    McpModule.forRoot({ name: 'reports', version: '1.0.0' }),
  ],
  providers: [ReportTools],
})
export class ReportsModule {}
// #endregion docs:per-provider-guard
