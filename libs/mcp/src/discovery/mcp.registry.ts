import { Injectable } from '@nestjs/common';
import { Subject } from 'rxjs';
import { MCP_APP_MIME_TYPE } from '../apps/apps.constants.js';
import type { McpToolContext } from '../context/mcp-tool.context.js';
import type { McpPromptContext } from '../context/mcp-prompt.context.js';
import type { McpResourceContext } from '../context/mcp-resource.context.js';
import type { McpHandler } from '../context/mcp-handler.interface.js';
import type { MrtrContext } from '../context/mrtr.context.js';
import type { McpAppViewOptions } from '../decorators/mcp-app-options.interface.js';
import type { McpPromptOptions } from '../decorators/mcp-prompt.decorator.js';
import type { McpResourceTemplateOptions } from '../decorators/mcp-resource-template.decorator.js';
import type { McpResourceOptions } from '../decorators/mcp-resource.decorator.js';
import type { McpToolOptions } from '../decorators/mcp-tool.decorator.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { McpEntryFactory } from './mcp-entry.factory.js';
import type { PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './registry-entries.interface.js';
import { callQuietlyWhenCancelled } from '../context/handler-errors.util.js';

/** A handler registered at run time: a plain function (no guards or interceptors run around it). */
export type McpRuntimeHandler<I, C extends MrtrContext> = (input: I, context: C) => unknown;

/**
 * A runtime handler as an `McpHandler`. Its failure after its call was cancelled is quiet, as for decorated handlers
 * (`callQuietlyWhenCancelled`): the context, with `ctx.signal`, is its second argument.
 */
const asHandler = <I, C extends MrtrContext>(fn: McpRuntimeHandler<I, C>, where: string): McpHandler => ({
  invoke: async (input, context) => callQuietlyWhenCancelled(fn as (...args: unknown[]) => unknown, undefined, [input, context], signalOfContext, where),
});

/** The call's signal, from a runtime handler's arguments `[input, context]`. */
function signalOfContext(args: unknown[]): AbortSignal | undefined {
  return (args[1] as MrtrContext).signal;
}

/** Authorization of a handler registered at run time: what `@McpScopes` says for decorated ones. */
export interface McpRuntimeHandlerOptions {
  /** Every OAuth scope a caller's token must grant to see and use the handler (see `@McpScopes`). Default: none. */
  scopes?: readonly string[];
}

/** Which list changed. */
export type McpListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/**
 * Everything the server exposes: filled by the explorer at bootstrap, and open to additions and removals at run
 * time. Tools and prompts are listed by name, resources by URI (code-point order), resource templates most specific
 * first (the order they are matched in), so that pages are deterministic.
 */
@Injectable()
export class McpRegistry {
  private readonly tools = new Map<string, ToolEntry>();
  private readonly prompts = new Map<string, PromptEntry>();
  private readonly resources = new Map<string, ResourceEntry>();
  private readonly templates = new Map<string, ResourceTemplateEntry>();
  private readonly sorted = new Map<McpListKind, readonly unknown[]>();
  private readonly changes = new Subject<McpListKind>();
  private discovered = false;
  private revision = 0;

  /** @internal Grows with every change: lets readers cache what they derive from the registry. */
  get version(): number {
    return this.revision;
  }

  /** @internal Emits the kind of list after each change once discovery finished (list-changed notifications). */
  readonly changes$ = this.changes.asObservable();

  /** @internal Called by the explorer once the decorated handlers are registered. */
  completeDiscovery(): void {
    this.discovered = true;
  }

  /**
   * Adds a tool at run time; listen streams that asked for `toolsListChanged` are told.
   *
   * @example
   * ```ts
   * registry.registerTool({ name: 'ping', description: 'Answers pong' }, () => 'pong');
   * registry.registerTool({ name: 'purge' }, () => 'purged', { scopes: ['cache:admin'] });
   * ```
   */
  registerTool<I = Record<string, unknown>>(
    options: McpToolOptions & { name: string },
    handler: McpRuntimeHandler<I, McpToolContext>,
    access: McpRuntimeHandlerOptions = {},
  ): void {
    const where = `runtime tool "${options.name}"`;
    const entry = McpEntryFactory.tool(where, options, asHandler(handler, where), undefined, access.scopes);
    // Before discovery the views may not be registered yet: the explorer checks every tool once they are.
    if (this.discovered) this.checkView(where, entry);
    this.addTool(entry);
  }

  /**
   * @internal Throws `McpDefinitionError` when `entry` names an MCP Apps view that is not registered as one (ext-apps:
   * the resource a tool names MUST exist and be readable).
   */
  checkView(where: string, entry: ToolEntry): void {
    const view = entry.app?.view;
    if (view === undefined) return;
    const resource = this.resources.get(view);
    if (!resource) {
      throw new McpDefinitionError(where, `tool "${entry.definition.name}" names the view ${view}, which no @McpAppView (or McpAppViews.fromFile) serves`);
    }
    if (resource.definition.mimeType !== MCP_APP_MIME_TYPE) {
      throw new McpDefinitionError(where, `tool "${entry.definition.name}" names ${view}, which is not served as an MCP Apps view (${MCP_APP_MIME_TYPE})`);
    }
  }

  /** Adds a prompt at run time (completion providers must be functions). */
  registerPrompt<I = Record<string, string>>(
    options: McpPromptOptions & { name: string },
    handler: McpRuntimeHandler<I, McpPromptContext>,
    access: McpRuntimeHandlerOptions = {},
  ): void {
    const where = `runtime prompt "${options.name}"`;
    this.addPrompt(McpEntryFactory.prompt(where, options, asHandler(handler, where), undefined, access.scopes));
  }

  /** Adds a static resource at run time; `name` defaults to the URI. */
  registerResource(
    options: McpResourceOptions,
    handler: McpRuntimeHandler<Record<string, never>, McpResourceContext>,
    access: McpRuntimeHandlerOptions = {},
  ): void {
    const named = { ...options, name: options.name ?? options.uri };
    const where = `runtime resource "${options.uri}"`;
    this.addResource(McpEntryFactory.resource(where, named, asHandler(handler, where), access.scopes));
  }

  /**
   * Adds an MCP Apps view at run time (what `@McpAppView` declares): the handler returns the view's HTML document.
   * `name` defaults to the URI. Register it before the tools that name it.
   *
   * @example
   * ```ts
   * registry.registerAppView('ui://flags/editor', { title: 'Flag editor' }, () => editorHtml);
   * ```
   */
  registerAppView(
    uri: string,
    options: McpAppViewOptions,
    handler: McpRuntimeHandler<Record<string, never>, McpResourceContext>,
    access: McpRuntimeHandlerOptions = {},
  ): void {
    const named = { ...options, uri, name: options.name ?? uri };
    const where = `runtime view "${uri}"`;
    this.addResource(McpEntryFactory.appView(where, named, asHandler(handler, where), access.scopes));
  }

  /** Adds a resource template at run time; `name` defaults to the template. */
  registerResourceTemplate<I = Record<string, string | string[]>>(
    options: McpResourceTemplateOptions,
    handler: McpRuntimeHandler<I, McpResourceContext>,
    access: McpRuntimeHandlerOptions = {},
  ): void {
    const named = { ...options, name: options.name ?? options.uriTemplate };
    const where = `runtime template "${options.uriTemplate}"`;
    this.addResourceTemplate(McpEntryFactory.resourceTemplate(where, named, asHandler(handler, where), undefined, access.scopes));
  }

  /** @internal Adds a built tool entry, and its companion prompt; a duplicate name (tool or prompt) throws. */
  addTool(entry: ToolEntry): void {
    const companion = entry.companion;
    // Checked first, so that a clash leaves neither the tool nor the prompt behind.
    if (companion && this.prompts.has(companion.definition.name)) {
      throw new Error(`nest-mcp: duplicate prompt "${companion.definition.name}" (companion of tool "${entry.definition.name}"): each prompt must be registered once`);
    }
    this.add(this.tools, entry.definition.name, entry, 'tools', 'tool');
    if (companion) this.add(this.prompts, companion.definition.name, companion, 'prompts', 'prompt');
  }

  /** @internal Adds a built prompt entry; a duplicate name throws. */
  addPrompt(entry: PromptEntry): void {
    this.add(this.prompts, entry.definition.name, entry, 'prompts', 'prompt');
  }

  /** @internal Adds a built resource entry; a duplicate URI throws. */
  addResource(entry: ResourceEntry): void {
    this.add(this.resources, entry.definition.uri, entry, 'resources', 'resource');
  }

  /** @internal Adds a built template entry; a duplicate template throws. */
  addResourceTemplate(entry: ResourceTemplateEntry): void {
    this.add(this.templates, entry.definition.uriTemplate, entry, 'resourceTemplates', 'resource template');
  }

  /** Removes a tool by name, and its companion prompt; returns whether it existed. */
  removeTool(name: string): boolean {
    const companion = this.tools.get(name)?.companion;
    const existed = this.remove(this.tools, name, 'tools');
    if (companion && this.prompts.get(companion.definition.name) === companion) this.remove(this.prompts, companion.definition.name, 'prompts');
    return existed;
  }

  /** Removes a prompt by name; returns whether it existed. */
  removePrompt(name: string): boolean {
    return this.remove(this.prompts, name, 'prompts');
  }

  /** Removes a static resource by URI; returns whether it existed. */
  removeResource(uri: string): boolean {
    return this.remove(this.resources, uri, 'resources');
  }

  /** Removes a resource template; returns whether it existed. */
  removeResourceTemplate(uriTemplate: string): boolean {
    return this.remove(this.templates, uriTemplate, 'resourceTemplates');
  }

  /** @internal The entry of a tool, for the features that serve it. */
  getTool(name: string): ToolEntry | undefined {
    return this.tools.get(name);
  }

  /** @internal */
  getPrompt(name: string): PromptEntry | undefined {
    return this.prompts.get(name);
  }

  /** @internal */
  getResource(uri: string): ResourceEntry | undefined {
    return this.resources.get(uri);
  }

  /** @internal */
  getResourceTemplate(uriTemplate: string): ResourceTemplateEntry | undefined {
    return this.templates.get(uriTemplate);
  }

  /** @internal Tools by name (code-point order). */
  listTools(): readonly ToolEntry[] {
    return this.list('tools', this.tools);
  }

  /** @internal */
  listPrompts(): readonly PromptEntry[] {
    return this.list('prompts', this.prompts);
  }

  /** @internal */
  listResources(): readonly ResourceEntry[] {
    return this.list('resources', this.resources);
  }

  /** @internal Templates, most specific first, so that the first match of a URI is the best one. */
  listResourceTemplates(): readonly ResourceTemplateEntry[] {
    return this.list('resourceTemplates', this.templates);
  }

  private add<T>(map: Map<string, T>, key: string, entry: T, kind: McpListKind, label: string): void {
    if (map.has(key)) {
      throw new Error(`nest-mcp: duplicate ${label} "${key}": each ${label} must be registered once`);
    }
    map.set(key, entry);
    this.changed(kind);
  }

  private remove<T>(map: Map<string, T>, key: string, kind: McpListKind): boolean {
    const existed = map.delete(key);
    if (existed) this.changed(kind);
    return existed;
  }

  private changed(kind: McpListKind): void {
    this.revision++;
    this.sorted.delete(kind);
    if (this.discovered) this.changes.next(kind);
  }

  private list<T>(kind: McpListKind, map: Map<string, T>): readonly T[] {
    let list = this.sorted.get(kind) as readonly T[] | undefined;
    if (!list) {
      const keys = [...map.keys()].sort(compareCodePoints);
      list = keys.map((key) => map.get(key) as T);
      if (kind === 'resourceTemplates') {
        list = [...(list as readonly ResourceTemplateEntry[])].sort(
          (a, b) => b.template.specificity - a.template.specificity,
        ) as unknown as readonly T[];
      }
      this.sorted.set(kind, list);
    }
    return list;
  }
}

/** Locale-independent ordering, so lists are identical on every machine. */
const compareCodePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
