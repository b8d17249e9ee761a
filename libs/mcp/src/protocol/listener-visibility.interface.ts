import type { McpRequestScope } from './mcp-request-scope.interface.js';
import type { McpTaskRecord } from './task-record.interface.js';

/**
 * Who opened a listen stream or subscribed a 2025-11-25 session to a resource, as the visibility rules judge callers
 * (`McpCaller`): its principal, its verified token, where it came from (a remote HTTP client is never trusted as a
 * local one) and, for a task's round, whether its task was authorized at creation.
 */
export type McpListenerSource = Pick<McpRequestScope, 'principal' | 'accessToken' | 'origin' | 'task'>;

/**
 * Which resource URIs one listener may hear about, judged with the rules of `resources/read` (`@McpScopes`, the
 * `visibility` hook): the static resource or, failing that, the first matching template that would serve the URI
 * for this caller (`skill://` and `ui://` resources included).
 */
export interface McpListenerView {
  /**
   * Whether the listener may follow `uri` (a 2026 listen filter keeps it in `resourceSubscriptions`; a resync repeats
   * its update): only when a resource or template the caller may see serves it. An unknown URI is refused too, so
   * that neither tells a hidden URI from one that does not exist.
   */
  follows(uri: string): boolean;
  /**
   * Whether a `notifications/resources/updated` for `uri` may reach the listener: unless a resource or template the
   * caller may not see serves it. An unknown URI may (it reveals no handler): a sub-resource of a followed one.
   */
  hears(uri: string): boolean;
}

/**
 * Decides per listener which resource changes it may hear about (implemented by the server's access policy). The
 * listen service and 2025-11-25 sessions ask it once per stream or subscription, and again when the resources or
 * templates change.
 */
export interface McpListenerVisibility {
  /**
   * The view of `listener`, or `undefined` when nothing can be hidden from it right now (no `visibility` hook, and
   * the caller is trusted or no resource or template requires scopes): then every URI may be followed and heard, at
   * no cost per event.
   */
  viewFor(listener: McpListenerSource): McpListenerView | undefined;
  /**
   * Whether the listener may follow `record`, one of its own tasks, with `notifications/tasks` (which carry what
   * `tasks/get` answers): only when it satisfies the scopes of the task's tool and the `visibility` hook shows the
   * tool, as for `tasks/get` itself.
   */
  seesTask(listener: McpListenerSource, record: McpTaskRecord): boolean;
}

/** Injection token of the {@link McpListenerVisibility} (optional: without it, listeners hear every URI). */
export const MCP_LISTENER_VISIBILITY = Symbol('nest-mcp:listener-visibility');
