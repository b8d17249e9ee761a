import type { McpResolvedWebhookOptions } from '../../config/resolved-options.js';
import { McpError } from '../../protocol/mcp.error.js';

/**
 * The lifetime granted for `ttlMs` (SEP-3415, "Subscription TTL"): absent → `defaultTtlMs`; a number → clamped to
 * `[minTtlMs, maxTtlMs]` (a too-short one is raised, never refused); `null` (no expiry) only with `allowNoExpiry`,
 * else `defaultTtlMs`. Only a wrong JSON type is `-32602`. Returns the expiry (ms since the epoch) or `null`.
 */
export function grantExpiry(ttlMs: unknown, options: McpResolvedWebhookOptions, now = Date.now()): number | null {
  if (ttlMs === null) return options.allowNoExpiry ? null : now + options.defaultTtlMs;
  if (ttlMs === undefined) return now + options.defaultTtlMs;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs))
    throw McpError.invalidParams('Invalid params: "ttlMs" must be a number of milliseconds or null');
  return now + Math.min(options.maxTtlMs, Math.max(options.minTtlMs, Math.round(ttlMs)));
}
