import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { ListPager } from './list-pager.js';

/** The field of a list result; the list's cache hints are the option `cacheHints.<field>List`. */
type ListField = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/**
 * One list method: the registry's entries of one kind, cut into pages of `pageSize` (kept until the list changes),
 * each page with the list's cache hints.
 */
export class McpListing<T extends { readonly definition: unknown }> {
  private readonly pager: ListPager<T>;
  private readonly cacheHints: `${ListField}List`;

  constructor(
    private readonly options: McpResolvedOptions,
    field: ListField,
    private readonly entries: () => readonly T[],
    /** The name its cursors carry: a cursor of one list is refused by another. */
    cursorName: string = field,
  ) {
    this.pager = new ListPager(cursorName, field, () => options.pageSize, (entry) => entry.definition);
    this.cacheHints = `${field}List`;
  }

  /** The page that starts at `params.cursor` (the first without one), with the list's cache hints. */
  page(scope: McpRequestScope): JsonObject {
    return { ...this.pager.page(this.entries(), scope.params.cursor), ...this.options.cacheHintsFor(this.cacheHints) };
  }
}

/** `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`. */
@Injectable()
export class McpListsService {
  readonly tools: McpListing<ToolEntry>;
  readonly prompts: McpListing<PromptEntry>;
  readonly resources: McpListing<ResourceEntry>;
  readonly resourceTemplates: McpListing<ResourceTemplateEntry>;

  constructor(registry: McpRegistry, options: McpResolvedOptions) {
    this.tools = new McpListing(options, 'tools', () => registry.listTools());
    this.prompts = new McpListing(options, 'prompts', () => registry.listPrompts());
    this.resources = new McpListing(options, 'resources', () => registry.listResources());
    this.resourceTemplates = new McpListing(options, 'resourceTemplates', () => registry.listResourceTemplates(), 'templates');
  }
}
