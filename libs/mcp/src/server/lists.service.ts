import { Injectable } from '@nestjs/common';
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

  constructor(
    private readonly options: McpResolvedOptions,
    private readonly field: ListField,
    private readonly entries: () => readonly T[],
    /** The name its cursors carry: a cursor of one list is refused by another. */
    private readonly cursorName: string = field,
    private readonly access?: McpAccessPolicy,
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
    if (mode === 'shared') return { ...this.pager.page(entries, scope.params.cursor), ...hints };
    const privateHints = { ttlMs: hints.ttlMs, cacheScope: 'private' };
    if (mode === 'private') return { ...this.pager.page(entries, scope.params.cursor), ...privateHints };
    const caller = access!.callerOf(scope);
    if (mode === 'hook') {
      const visible = entries.filter((entry) => access!.isVisible(entry.summary, caller));
      return { ...this.pager.pageOnce(visible, scope.params.cursor), ...privateHints };
    }
    const view = this.viewFor(entries, access!.scopeKey(caller), (entry) => access!.scopesAllow(entry.summary, caller));
    return { ...view.pager.page(view.entries, scope.params.cursor), ...privateHints };
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
    return new ListPager(this.cursorName, this.field, () => this.options.pageSize, (entry) => entry.definition);
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
    this.tools = new McpListing(options, 'tools', () => registry.listTools(), 'tools', access);
    this.prompts = new McpListing(options, 'prompts', () => registry.listPrompts(), 'prompts', access);
    this.resources = new McpListing(options, 'resources', () => registry.listResources(), 'resources', access);
    this.resourceTemplates = new McpListing(options, 'resourceTemplates', () => registry.listResourceTemplates(), 'templates', access);
  }
}
