import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { MCP_MODULE_OPTIONS } from '../config/mcp-module-definition.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { AccessControlled } from '../discovery/registry-entries.interface.js';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';
import { McpScopeMatcher } from '../auth/scope.matcher.js';
import { buildBearerChallenge } from '../auth/www-authenticate.js';
import { McpAuthError } from '../protocol/access-token.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import type { McpCaller, McpHandlerSummary, McpVisibilityHook } from '../protocol/mcp-caller.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import type {
  McpListenerSource,
  McpListenerView,
  McpListenerVisibility,
} from '../protocol/listener-visibility.interface.js';
import type { McpTaskRecord } from '../protocol/task-record.interface.js';
import { MAX_URI_LENGTH } from '../protocol/uri.util.js';
import { CallerListenerView, type McpUriAccess } from './listener-view.js';

const NO_SCOPES: readonly string[] = Object.freeze([]);

/** What the policy needs of a call: a request scope, or what a transport knows before the call has one. */
export type McpCallerSource = Pick<McpRequestScope, 'principal' | 'accessToken' | 'origin' | 'task'>;

const KIND_LABEL: Readonly<Record<McpHandlerSummary['kind'], string>> = {
  tool: 'Tool',
  prompt: 'Prompt',
  resource: 'Resource',
  resourceTemplate: 'Resource template',
  event: 'Event type',
};

/**
 * Who may see and use which handler (`@McpScopes`, the `visibility` option): the one place both rules are applied,
 * for direct calls (`tools/call`, `prompts/get`, `resources/read`, before argument validation, task creation and
 * guards; `events/poll`, `events/stream`, `events/subscribe` of an event type) and for lists and completions.
 *
 * A direct call of a handler the `visibility` hook hides is answered exactly as an unknown one (the feature passes
 * its own "unknown" error); a visible handler whose scopes the caller's token does not satisfy gets HTTP 403
 * `insufficient_scope` naming every scope it needs, so the client can step up. Callers without a token follow
 * `McpCaller`'s rules: local calls and authorized task rounds are trusted, anything else fails closed.
 *
 * It is also the `McpListenerVisibility` of listen streams and 2025-11-25 session subscriptions (`viewFor`): a
 * listener hears about a resource URI only if it could read it.
 */
@Injectable()
export class McpAccessPolicy implements McpListenerVisibility {
  private readonly logger = new Logger('McpAccessPolicy');
  private readonly hook?: McpVisibilityHook;
  /** Whether `auth` is configured (then a token is expected on every HTTP call). */
  private readonly auth: boolean;
  private readonly matcher: McpScopeMatcher;
  /** Lists already seen, and whether any of their entries requires scopes (lists are replaced when they change). */
  private readonly scopedLists = new WeakMap<readonly AccessControlled[], boolean>();
  /** Handlers the hook threw for, logged once each (it runs per request: a broken hook must not flood the log). */
  private readonly hookFailures = new WeakSet<McpHandlerSummary>();

  constructor(
    @Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions,
    private readonly authenticator: McpAuthenticator,
    // Optional so that a policy can be built without handlers (unit tests): then no URI is known to listeners.
    @Optional() private readonly registry?: McpRegistry,
  ) {
    if (options.visibility !== undefined && typeof options.visibility !== 'function') {
      throw new Error('McpModule: option "visibility" must be a function (handler, caller) => boolean');
    }
    this.hook = options.visibility;
    this.auth = authenticator.enabled;
    this.matcher = new McpScopeMatcher(authenticator.options?.scopeHierarchy);
  }

  /**
   * How a list of `entries` is served (they are the registry's current list of one kind):
   * - `shared`: no `auth`, no hook, no entry with scopes: every caller sees everything, with the configured hints;
   * - `private`: every caller sees everything, but the server filters per caller (`auth` on), so `cacheScope: "private"`;
   * - `scopes`: what a caller sees depends on its scopes only (no hook): one filtered list per distinct scope set;
   * - `hook`: the `visibility` hook judges every entry for every request.
   */
  listMode(entries: readonly AccessControlled[]): 'shared' | 'private' | 'scopes' | 'hook' {
    if (this.hook) return 'hook';
    if (this.anyScoped(entries)) return 'scopes';
    return this.auth ? 'private' : 'shared';
  }

  /** Whether an entry of `entries` requires scopes (remembered per list: the registry replaces a list that changes). */
  private anyScoped(entries: readonly AccessControlled[]): boolean {
    let scoped = this.scopedLists.get(entries);
    if (scoped === undefined) {
      scoped = entries.some((entry) => entry.summary.scopes.length > 0);
      this.scopedLists.set(entries, scoped);
    }
    return scoped;
  }

  /**
   * Whether only some callers may use `summary` (it requires scopes, or a `visibility` hook judges it): what it
   * answers is then `cacheScope: "private"` whatever the configured hints say.
   */
  restricts(summary: McpHandlerSummary): boolean {
    return this.hook !== undefined || summary.scopes.length > 0;
  }

  /** The caller of a call, as the scope check and the `visibility` hook see it (see `McpCaller`). */
  callerOf(source: McpCallerSource): McpCaller {
    const token = source.accessToken;
    if (token) return { principal: source.principal, scopes: token.scopes, accessToken: token, trusted: false };
    // No token. A task's round: trusted when its creating call was authorized (the scope check ran then). Otherwise a
    // local call (stdio, the in-process testing kit) is trusted; a remote HTTP call is not.
    const trusted = source.task ? source.task.authorized === true : source.origin !== 'http';
    return { principal: source.principal, scopes: NO_SCOPES, trusted };
  }

  /** A key of what the caller's scopes let it see (not the hook): callers with equal keys see the same entries. */
  scopeKey(caller: McpCaller): string {
    // A scope token never holds a space, so joining the sorted scopes with one is unambiguous.
    return caller.trusted ? '*' : [...new Set(caller.scopes)].sort().join(' ');
  }

  /** Whether `caller` may see `summary`: its scopes (unless trusted) and the `visibility` hook. */
  isVisible(summary: McpHandlerSummary, caller: McpCaller): boolean {
    return this.scopesAllow(summary, caller) && this.hookAllows(summary, caller);
  }

  /** Whether the caller's scopes allow `summary`, hook aside. */
  scopesAllow(summary: McpHandlerSummary, caller: McpCaller): boolean {
    return summary.scopes.length === 0 || caller.trusted || this.matcher.satisfies(caller.scopes, summary.scopes);
  }

  /** Whether the `visibility` hook (if any) lets `caller` see `summary`; only `true` does, a throw hides. */
  hookAllows(summary: McpHandlerSummary, caller: McpCaller): boolean {
    if (!this.hook) return true;
    try {
      return this.hook(summary, caller) === true;
    } catch (error) {
      if (!this.hookFailures.has(summary)) {
        this.hookFailures.add(summary);
        this.logger.error(
          `The visibility hook threw for ${summary.kind} "${summary.name}"; it is hidden`,
          (error as Error)?.stack ?? String(error),
        );
      }
      return false;
    }
  }

  /** Whether the `visibility` hook hides `summary` from the caller of `source` (false without a hook). */
  hides(source: McpCallerSource, summary: McpHandlerSummary): boolean {
    return this.hook !== undefined && !this.hookAllows(summary, this.callerOf(source));
  }

  /**
   * `hides` for an HTTP transport that knows the caller before the call has a scope (its principal and verified
   * token): a remote caller, never a trusted local one.
   */
  hidesFromRemote(caller: Pick<McpCallerSource, 'principal' | 'accessToken'>, summary: McpHandlerSummary): boolean {
    if (this.hook === undefined) return false;
    return !this.hookAllows(
      summary,
      this.callerOf({ principal: caller.principal, accessToken: caller.accessToken, origin: 'http' }),
    );
  }

  /**
   * What `listener` may hear about resource URIs (`McpListenerVisibility`): `undefined` when nothing can be hidden
   * from it (no `visibility` hook, and a trusted caller or no resource or template with `@McpScopes`), else a view
   * that judges each URI as `resources/read` would serve it to this caller (see `uriAccess`). Built when a stream
   * opens or a session subscribes, and again whenever resources or templates change.
   */
  viewFor(listener: McpListenerSource): McpListenerView | undefined {
    const caller = this.callerOf(listener);
    if (!this.hook && (caller.trusted || !this.anyScopedResource())) return undefined;
    const registry = this.registry;
    return new CallerListenerView(
      (uri) => this.uriAccess(uri, caller),
      () => registry?.version ?? 0,
    );
  }

  /**
   * Whether `caller` may know of `uri`, resolved as `resources/read` resolves it: the static resource unless the hook
   * hides it, else the first matching template the hook does not hide; `visible` if the caller's scopes allow that
   * handler, `hidden` if they do not or if every handler that matches is hidden by the hook, `unknown` if none
   * matches (nor a URI too long to be read).
   */
  uriAccess(uri: string, caller: McpCaller): McpUriAccess {
    const registry = this.registry;
    if (!registry || uri.length > MAX_URI_LENGTH) return 'unknown';
    let matched = false;
    const resource = registry.getResource(uri);
    if (resource) {
      if (this.hookAllows(resource.summary, caller))
        return this.scopesAllow(resource.summary, caller) ? 'visible' : 'hidden';
      matched = true;
    }
    for (const entry of registry.listResourceTemplates()) {
      if (!entry.template.match(uri)) continue;
      if (this.hookAllows(entry.summary, caller)) return this.scopesAllow(entry.summary, caller) ? 'visible' : 'hidden';
      matched = true;
    }
    return matched ? 'hidden' : 'unknown';
  }

  /** Whether a resource or template requires scopes (the registry's lists are replaced when they change). */
  private anyScopedResource(): boolean {
    const registry = this.registry;
    if (!registry) return false;
    return this.anyScoped(registry.listResources()) || this.anyScoped(registry.listResourceTemplates());
  }

  /**
   * Admits a direct call of a handler, before anything else runs for it: throws `unknown(key)` when the `visibility`
   * hook hides it (exactly what a missing handler answers), `McpAuthError` 403 `insufficient_scope` when the caller's
   * token does not satisfy its scopes (401 if an HTTP call reached here without a token on a server with `auth`).
   * Costs one property read for a handler without scopes on a server without a hook (and no closure: the feature
   * passes its module-level `unknown` and the name or URI).
   */
  admit(scope: McpRequestScope, summary: McpHandlerSummary, unknown: (key: string) => McpError, key: string): void {
    if (!this.hook && summary.scopes.length === 0) return;
    const caller = this.callerOf(scope);
    if (!this.hookAllows(summary, caller)) throw unknown(key);
    if (this.scopesAllow(summary, caller)) return;
    // An HTTP call without a token on a server with `auth` means the bearer check did not run: refuse it as one.
    const tokenMissing = this.auth && !caller.accessToken && !scope.task && scope.origin === 'http';
    throw this.refusal(summary, tokenMissing);
  }

  /**
   * Admits a `tasks/*` request (both wires) for `record`, a task of the caller's own principal, exactly as a direct
   * call of its tool would be (`admit`): `unknown(taskId)` when the `visibility` hook hides the tool from this caller,
   * the `tools/call` refusal (403 `insufficient_scope` naming every scope, for step-up) when the caller's token lacks
   * the scopes the tool required when the task was created. Owners are checked before (the store's `get`): a foreign
   * caller never gets this far, so the 403 tells nothing about someone else's task.
   */
  admitTask(scope: McpRequestScope, record: McpTaskRecord, unknown: (key: string) => McpError): void {
    this.admit(scope, this.taskSummary(record), unknown, record.taskId);
  }

  /** Whether the caller of `source` may see `record` in a list or a listen stream: the rules of `admitTask`. */
  seesTask(source: McpCallerSource, record: McpTaskRecord): boolean {
    const summary = this.taskSummary(record);
    if (!this.hook && summary.scopes.length === 0) return true;
    return this.isVisible(summary, this.callerOf(source));
  }

  /**
   * The tool of a task as the rules judge it: the scopes recorded when the task was created (for a record without
   * them, the tool's scopes now), and the registered tool's own summary when it still has those scopes (the hook
   * may key on that object); otherwise a summary of the same name with the recorded scopes.
   */
  private taskSummary(record: McpTaskRecord): McpHandlerSummary {
    const name = typeof record.params.name === 'string' ? record.params.name : '';
    const registered = this.registry?.getTool(name)?.summary;
    const scopes = record.requiredScopes ?? registered?.scopes ?? NO_SCOPES;
    if (registered && sameScopes(registered.scopes, scopes)) return registered;
    return { kind: 'tool', name, scopes };
  }

  /**
   * The refusal of a caller whose scopes fall short. With `auth`: `McpAuthError` 403 with the challenge
   * `Bearer error="insufficient_scope", scope="<every scope the handler needs>", resource_metadata="…"` (all of them,
   * not only the missing ones: the client asks for them at once, MCP 2026-07-28 T-AUTH-03/07), or 401 as for a missing
   * token. Without `auth` there is no token to step up to: a plain 403.
   */
  private refusal(summary: McpHandlerSummary, tokenMissing: boolean): McpError {
    const needed = summary.scopes;
    if (tokenMissing) {
      // No credentials: no error code (RFC 6750 §3.1), as the bearer check answers.
      const challenge = buildBearerChallenge({
        resourceMetadata: this.authenticator.metadataLocation!.url,
        scopes: needed,
      });
      return new McpAuthError(401, 'Unauthorized: a bearer token is required', challenge);
    }
    const description = `${KIND_LABEL[summary.kind]} "${summary.uri ?? summary.name}" needs the scopes: ${needed.join(' ')}`;
    const message = `Insufficient scope: ${description}`;
    const data = { requiredScopes: [...needed] };
    if (!this.auth) return new McpError(McpErrorCode.InvalidRequest, message, data, 403);
    const challenge = this.authenticator.challenge({ error: 'insufficient_scope', scopes: needed, description });
    return new McpAuthError(403, message, challenge, data);
  }
}

function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((scope, index) => scope === b[index]);
}
