import { Injectable } from '@nestjs/common';
import { declaresApps } from '../apps/apps-capability.util.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type {
  AccessControlled,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
} from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpAccessPolicy } from './access.policy.js';
import { ListPager } from './list-pager.js';

/** The field of a list result; the list's cache hints are the option `cacheHints.<field>List`. */
type ListField = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/**
 * Most distinct scope sets whose filtered list (and its pages) one list keeps at once; the least recently used goes
 * first. Callers usually fall into a few roles, so this is rarely reached; beyond it lists are still right, only
 * rebuilt more often.
 */
const MAX_SCOPE_VIEWS = 256;

/**
 * Hides some entries of a list from requests by what their client declared, not by who calls (app-only tools from
 * clients without the MCP Apps extension). A list that holds such entries varies by client: `cacheScope: "private"`.
 */
export interface McpListAudience<T> {
  /** Whether some of `entries` (the registry's current list) are hidden from some clients. */
  varies(entries: readonly T[]): boolean;
  /** The kind of client that sent the request (a short key without a line break; equal keys see equal entries). */
  clientOf(scope: McpRequestScope): string;
  /** Whether a client of kind `client` sees `entry`. */
  shows(entry: T, client: string): boolean;
}

/** The entries one set of scopes sees, with their pages. */
interface ScopeView<T> {
  readonly entries: readonly T[];
  readonly pager: ListPager<T>;
}

/**
 * One list method: the registry's entries of one kind, cut into pages of `pageSize` (kept until the list changes),
 * each page with the list's cache hints.
 *
 * When the server filters lists per caller (`auth`, a `visibility` hook, or entries with `@McpScopes`; see
 * `McpAccessPolicy.listMode`), each caller gets only what it may see, its cursors count in that filtered list, and the
 * result is `cacheScope: "private"` (its `ttlMs` stays the configured one). Filtered lists are kept per distinct set of
 * scopes (at most `MAX_SCOPE_VIEWS`); with a hook, which may judge anything about the caller, they are built per
 * request. When nothing is filtered every caller shares the same pages, as without authorization.
 */
export class McpListing<T extends AccessControlled & { readonly definition: unknown }> {
  private readonly pager: ListPager<T>;
  private readonly cacheHints: `${ListField}List`;
  private views = new Map<string, ScopeView<T>>();
  /** The registry's list the views were built from (a new array after every change). */
  private viewsOf?: readonly T[];
  /** Whether the audience hides some entries of the registry's list (the lists the answer is known for). */
  private readonly varying = new WeakMap<readonly T[], boolean>();

  constructor(
    private readonly options: McpResolvedOptions,
    private readonly field: ListField,
    private readonly entries: () => readonly T[],
    /** The name its cursors carry: a cursor of one list is refused by another. */
    private readonly cursorName: string = field,
    private readonly access?: McpAccessPolicy,
    private readonly audience?: McpListAudience<T>,
  ) {
    this.pager = this.newPager();
    this.cacheHints = `${field}List`;
  }

  /** The page that starts at `params.cursor` (the first without one), with the list's cache hints. */
  page(scope: McpRequestScope): JsonObject {
    const entries = this.entries();
    const hints = this.options.cacheHintsFor(this.cacheHints);
    const access = this.access;
    const mode = access ? access.listMode(entries) : 'shared';
    const privateHints = { ttlMs: hints.ttlMs, cacheScope: 'private' };
    if (this.variesByClient(entries)) return { ...this.pageFor(scope, entries, mode), ...privateHints };
    if (mode === 'shared') return { ...this.pager.page(entries, scope.params.cursor), ...hints };
    if (mode === 'private') return { ...this.pager.page(entries, scope.params.cursor), ...privateHints };
    const caller = access!.callerOf(scope);
    if (mode === 'hook') {
      const visible = entries.filter((entry) => access!.isVisible(entry.summary, caller));
      return { ...this.pager.pageOnce(visible, scope.params.cursor), ...privateHints };
    }
    const view = this.viewFor(entries, access!.scopeKey(caller), (entry) => access!.scopesAllow(entry.summary, caller));
    return { ...view.pager.page(view.entries, scope.params.cursor), ...privateHints };
  }

  private variesByClient(entries: readonly T[]): boolean {
    if (!this.audience) return false;
    let varies = this.varying.get(entries);
    if (varies === undefined) {
      varies = this.audience.varies(entries);
      this.varying.set(entries, varies);
    }
    return varies;
  }

  /** The page of a list that varies by client: what the request's client (and, when filtered, its caller) sees. */
  private pageFor(
    scope: McpRequestScope,
    entries: readonly T[],
    mode: ReturnType<McpAccessPolicy['listMode']>,
  ): JsonObject {
    const audience = this.audience!;
    const access = this.access;
    const client = audience.clientOf(scope);
    const caller = mode === 'hook' || mode === 'scopes' ? access!.callerOf(scope) : undefined;
    if (mode === 'hook') {
      const visible = entries.filter(
        (entry) => audience.shows(entry, client) && access!.isVisible(entry.summary, caller!),
      );
      return this.pager.pageOnce(visible, scope.params.cursor);
    }
    // A scope token never holds a line break: the key is unambiguous.
    const key = caller ? `${client}\n${access!.scopeKey(caller)}` : client;
    const view = this.viewFor(
      entries,
      key,
      (entry) => audience.shows(entry, client) && (!caller || access!.scopesAllow(entry.summary, caller)),
    );
    return view.pager.page(view.entries, scope.params.cursor);
  }

  private viewFor(entries: readonly T[], key: string, allows: (entry: T) => boolean): ScopeView<T> {
    if (this.viewsOf !== entries) {
      this.viewsOf = entries;
      this.views = new Map();
    }
    let view = this.views.get(key);
    if (view) {
      // Most recently used last: the first key is the one to drop.
      this.views.delete(key);
    } else {
      if (this.views.size >= MAX_SCOPE_VIEWS) this.views.delete(this.views.keys().next().value as string);
      view = { entries: entries.filter(allows), pager: this.newPager() };
    }
    this.views.set(key, view);
    return view;
  }

  private newPager(): ListPager<T> {
    return new ListPager(
      this.cursorName,
      this.field,
      () => this.options.pageSize,
      (entry) => entry.definition,
    );
  }
}

/** `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`, each filtered per caller when needed. */
@Injectable()
export class McpListsService {
  readonly tools: McpListing<ToolEntry>;
  readonly prompts: McpListing<PromptEntry>;
  readonly resources: McpListing<ResourceEntry>;
  readonly resourceTemplates: McpListing<ResourceTemplateEntry>;

  constructor(registry: McpRegistry, options: McpResolvedOptions, access?: McpAccessPolicy) {
    this.tools = new McpListing(options, 'tools', () => registry.listTools(), 'tools', access, APP_ONLY_TOOLS);
    this.prompts = new McpListing(options, 'prompts', () => registry.listPrompts(), 'prompts', access);
    this.resources = new McpListing(options, 'resources', () => registry.listResources(), 'resources', access);
    this.resourceTemplates = new McpListing(
      options,
      'resourceTemplates',
      () => registry.listResourceTemplates(),
      'templates',
      access,
    );
  }
}

/**
 * App-only tools (`@McpTool({ app: { visibility: ['app'] } })`) are listed only to clients that declared the MCP Apps
 * extension, which keep them from the model; any other client would offer them to the model as ordinary tools.
 */
const APP_ONLY_TOOLS: McpListAudience<ToolEntry> = {
  varies: (entries) => entries.some((entry) => entry.app?.appOnly === true),
  clientOf: (scope) => (declaresApps(scope.meta.clientCapabilities) ? 'apps' : 'plain'),
  shows: (entry, client) => client === 'apps' || entry.app?.appOnly !== true,
};
