import type { McpModuleOptions } from 'nest-mcp';

/** What the console reads to let webhooks be tried on a laptop. */
export interface DevWebhookEnv {
  /**
   * `1`: **development only** — accept `http://127.0.0.1:<port>` webhook callbacks (`allowInsecureLoopback`), and,
   * without `--auth`, treat every caller as the principal `dev-user` (webhook subscriptions need a principal).
   */
  readonly MCP_DEV_WEBHOOKS?: string;
}

/** The principal every caller is on the plain demo with `MCP_DEV_WEBHOOKS=1`. Never do this in production. */
export const DEV_WEBHOOK_PRINCIPAL = 'dev-user';

/**
 * The console's options for trying webhooks locally: with `MCP_DEV_WEBHOOKS=1`, loopback receivers are allowed and,
 * when `auth` is off, every caller is `dev-user` (with `--auth` the token's subject is the principal, as always).
 * Otherwise nothing: callbacks must be public `https` URLs, and the plain demo, having no principal, refuses
 * `events/subscribe` (`Forbidden`) while poll and push streams work.
 */
export function devWebhookOptions(env: DevWebhookEnv, auth: McpModuleOptions['auth']): Partial<McpModuleOptions> {
  if (env.MCP_DEV_WEBHOOKS !== '1') return {};
  return {
    ...(auth === undefined && { principal: () => DEV_WEBHOOK_PRINCIPAL }),
    events: { webhooks: { allowInsecureLoopback: true } },
  };
}
