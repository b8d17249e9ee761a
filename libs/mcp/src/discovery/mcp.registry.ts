import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
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
import {
  MCP_REGISTRY_STATE,
  type McpRegistryRecord,
  type McpRegistryState,
  type McpRuntimeEntryType,
} from '../protocol/registry-state.interface.js';
import { RegistryReplication } from './registry-replication.js';
import { registryLists } from './registry-lists.js';
import { isPlainJson } from './plain-json.util.js';

/** A handler registered at run time: a plain function (no guards or interceptors run around it). */
export type McpRuntimeHandler<I, C extends MrtrContext> = (input: I, context: C) => unknown;

/**
 * A runtime handler as an `McpHandler`. Its failure after its call was cancelled is quiet, as for decorated handlers
 * (`callQuietlyWhenCancelled`): the context, with `ctx.signal`, is its second argument.
 */
const asHandler = <I, C extends MrtrContext>(fn: McpRuntimeHandler<I, C>, where: string): McpHandler => ({
  invoke: async (input, context) =>
    callQuietlyWhenCancelled(
      fn as (...args: unknown[]) => unknown,
      undefined,
      [input, context],
      signalOfContext,
      where,
    ),
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
 * The handler of a runtime registration: a function (this process only), or the name of a handler every replica
 * provides with `McpRegistry.provideHandler` (required with a shared `registryState`: a function cannot travel).
 */
export type McpRuntimeHandlerRef<I, C extends MrtrContext> = McpRuntimeHandler<I, C> | string;

/** Any entry of the registry. */
type AnyEntry = ToolEntry | PromptEntry | ResourceEntry | ResourceTemplateEntry;

/**
 * Everything the server exposes: filled by the explorer at bootstrap, and open to additions and removals at run
 * time. Tools and prompts are listed by name, resources by URI (code-point order), resource templates most specific
 * first (the order they are matched in), so that pages are deterministic.
 *
 * With a shared `registryState` (`nest-mcp-redis`), runtime changes are the cluster's: each is committed to the
 * shared state before it is announced, every replica applies it, and a replica brings its lists up to the shared
 * state before it serves one (`catchUp`). Handlers then travel by name (`provideHandler`); see ADR 0027.
 */
@Injectable()
export class McpRegistry implements OnModuleDestroy {
  private readonly tools = new Map<string, ToolEntry>();
  private readonly prompts = new Map<string, PromptEntry>();
  private readonly resources = new Map<string, ResourceEntry>();
  private readonly templates = new Map<string, ResourceTemplateEntry>();
  private readonly sorted = new Map<McpListKind, readonly unknown[]>();
  private readonly changes = new Subject<McpListKind>();
  private discovered = false;
  private revision = 0;
  /** Handlers runtime registrations name (`provideHandler`). */
  private readonly provided = new Map<string, McpRuntimeHandler<never, never>>();
  /** Declared entries switched off (`disableTool`…), by entry key, to switch them on again. */
  private readonly disabledEntries = new Map<string, AnyEntry>();
  /** While above 0, changes are held, not announced (`quietly`). */
  private quiet = 0;
  private held = new Set<McpListKind>();
  private replayed = false;
  private readonly replication?: RegistryReplication<McpListKind, Set<McpListKind>>;

  constructor(@Optional() @Inject(MCP_REGISTRY_STATE) state?: McpRegistryState) {
    if (state) this.replication = new RegistryReplication(registryLists(this), state);
  }

  /**
   * @internal Whether the change being announced came from the shared state (another replica made it): listeners on
   * every replica heard of it from the replica that made it, so it is not published again.
   */
  get replaying(): boolean {
    return this.replayed;
  }

  /** @internal Whether runtime changes are shared with other replicas (a `registryState` is configured). */
  get shared(): boolean {
    return this.replication !== undefined;
  }

  onModuleDestroy(): void {
    this.replication?.stop();
  }

  /**
   * @internal Before a list is served (or a name is not found): with a shared state, resolves once this replica has
   * applied every change committed so far; `undefined` (nothing to wait for) without one.
   */
  catchUp(): Promise<void> | undefined {
    return this.replication?.catchUp();
  }

  /**
   * Whether the list `kind` holds `key` (a tool's or prompt's name, a resource's URI, a template) — with a shared
   * `registryState`, once this replica caught up with every change committed so far.
   */
  async has(kind: McpListKind, key: string): Promise<boolean> {
    await this.catchUp();
    return this.mapOf(kind).has(key);
  }

  /**
   * Resolves once every runtime change this replica made so far is shared with the other replicas and announced
   * (at once without a shared `registryState`); rejects when one could not be shared (it was undone here).
   *
   * @example
   * ```ts
   * registry.removeTool('estimate_costs');
   * await registry.settled(); // every replica now lists tools without it
   * ```
   */
  settled(): Promise<void> {
    return this.replication?.settled() ?? Promise.resolve();
  }

  /**
   * Names a handler for runtime registrations, so that a registration on one replica can be applied on every other
   * (`registerTool(options, 'name')`): provide the same names on every replica, at startup (`onModuleInit`).
   *
   * @example
   * ```ts
   * registry.provideHandler('estimate-costs', ({ name }) => estimateCosts(catalog, name));
   * await registry.registerTool(ESTIMATE_COSTS_TOOL, 'estimate-costs');
   * ```
   */
  provideHandler<I = Record<string, unknown>, C extends MrtrContext = McpToolContext>(
    name: string,
    handler: McpRuntimeHandler<I, C>,
  ): void {
    if (typeof name !== 'string' || name.length === 0)
      throw new McpDefinitionError('provideHandler', 'the name must be a non-empty string');
    if (typeof handler !== 'function')
      throw new McpDefinitionError(`provideHandler("${name}")`, 'the handler must be a function');
    if (this.provided.has(name))
      throw new McpDefinitionError(`provideHandler("${name}")`, 'a handler of that name is provided already');
    this.provided.set(name, handler as McpRuntimeHandler<never, never>);
    // A registration the shared state holds may have waited for this name.
    this.replication?.handlerProvided();
  }

  /** @internal Grows with every change: lets readers cache what they derive from the registry. */
  get version(): number {
    return this.revision;
  }

  /** @internal Emits the kind of list after each change once discovery finished (list-changed notifications). */
  readonly changes$ = this.changes.asObservable();

  /**
   * @internal Called by the explorer once the decorated handlers are registered; with a shared state, resolves once
   * the registry applied it (the explorer's bootstrap hook awaits it, so no request is served before).
   */
  completeDiscovery(): Promise<void> | undefined {
    this.discovered = true;
    return this.replication?.start();
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
    handler: McpRuntimeHandlerRef<I, McpToolContext>,
    access: McpRuntimeHandlerOptions = {},
  ): Promise<void> {
    return this.registerRuntime('tool', options as unknown as JsonOptions, handler, access.scopes);
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
      throw new McpDefinitionError(
        where,
        `tool "${entry.definition.name}" names the view ${view}, which no @McpAppView (or McpAppViews.fromFile) serves`,
      );
    }
    if (resource.definition.mimeType !== MCP_APP_MIME_TYPE) {
      throw new McpDefinitionError(
        where,
        `tool "${entry.definition.name}" names ${view}, which is not served as an MCP Apps view (${MCP_APP_MIME_TYPE})`,
      );
    }
  }

  /** Adds a prompt at run time (completion providers must be functions, so not with a shared `registryState`). */
  registerPrompt<I = Record<string, string>>(
    options: McpPromptOptions & { name: string },
    handler: McpRuntimeHandlerRef<I, McpPromptContext>,
    access: McpRuntimeHandlerOptions = {},
  ): Promise<void> {
    return this.registerRuntime('prompt', options as unknown as JsonOptions, handler, access.scopes);
  }

  /** Adds a static resource at run time; `name` defaults to the URI. */
  registerResource(
    options: McpResourceOptions,
    handler: McpRuntimeHandlerRef<Record<string, never>, McpResourceContext>,
    access: McpRuntimeHandlerOptions = {},
  ): Promise<void> {
    return this.registerRuntime('resource', options as unknown as JsonOptions, handler, access.scopes);
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
    handler: McpRuntimeHandlerRef<Record<string, never>, McpResourceContext>,
    access: McpRuntimeHandlerOptions = {},
  ): Promise<void> {
    return this.registerRuntime('appView', options as unknown as JsonOptions, handler, access.scopes, uri);
  }

  /** Adds a resource template at run time; `name` defaults to the template. */
  registerResourceTemplate<I = Record<string, string | string[]>>(
    options: McpResourceTemplateOptions,
    handler: McpRuntimeHandlerRef<I, McpResourceContext>,
    access: McpRuntimeHandlerOptions = {},
  ): Promise<void> {
    return this.registerRuntime('resourceTemplate', options as unknown as JsonOptions, handler, access.scopes);
  }

  /**
   * Switches a declared (or runtime) tool off: it is no longer listed or callable, on every replica with a shared
   * `registryState`, until `enableTool`. Returns whether it was there.
   */
  disableTool(name: string): boolean {
    return this.disable('tools', name);
  }

  /** Switches a tool that `disableTool` switched off on again; returns whether it was off. */
  enableTool(name: string): boolean {
    return this.enable('tools', name);
  }

  /** Switches a prompt off (see `disableTool`); returns whether it was there. */
  disablePrompt(name: string): boolean {
    return this.disable('prompts', name);
  }

  /** Switches a prompt that `disablePrompt` switched off on again; returns whether it was off. */
  enablePrompt(name: string): boolean {
    return this.enable('prompts', name);
  }

  /**
   * @internal The entry a runtime registration describes (validated; its handler resolved), with the list it goes to
   * and its key there. Throws `McpDefinitionError` for what cannot be registered.
   */
  runtimeEntry(
    type: McpRuntimeEntryType,
    options: JsonOptions,
    handler: McpRuntimeHandlerRef<never, never>,
    scopes?: readonly string[],
    uri?: string,
  ): { kind: McpListKind; key: string; entry: AnyEntry } {
    switch (type) {
      case 'tool': {
        const where = `runtime tool "${options.name}"`;
        const entry = McpEntryFactory.tool(
          where,
          options as unknown as McpToolOptions & { name: string },
          asHandler(this.handlerOf(where, handler), where),
          undefined,
          scopes,
        );
        // Before discovery the views may not be registered yet: the explorer checks every tool once they are.
        if (this.discovered) this.checkView(where, entry);
        return { kind: 'tools', key: entry.definition.name, entry };
      }
      case 'prompt': {
        const where = `runtime prompt "${options.name}"`;
        const entry = McpEntryFactory.prompt(
          where,
          options as unknown as McpPromptOptions & { name: string },
          asHandler(this.handlerOf(where, handler), where),
          undefined,
          scopes,
        );
        return { kind: 'prompts', key: entry.definition.name, entry };
      }
      case 'resource': {
        const named = {
          ...(options as unknown as McpResourceOptions),
          name: (options.name as string | undefined) ?? (options.uri as string),
        };
        const where = `runtime resource "${named.uri}"`;
        const entry = McpEntryFactory.resource(where, named, asHandler(this.handlerOf(where, handler), where), scopes);
        return { kind: 'resources', key: entry.definition.uri, entry };
      }
      case 'appView': {
        const named = {
          ...(options as unknown as McpAppViewOptions),
          uri: uri!,
          name: (options.name as string | undefined) ?? uri!,
        };
        const where = `runtime view "${uri}"`;
        const entry = McpEntryFactory.appView(where, named, asHandler(this.handlerOf(where, handler), where), scopes);
        return { kind: 'resources', key: entry.definition.uri, entry };
      }
      case 'resourceTemplate': {
        const named = {
          ...(options as unknown as McpResourceTemplateOptions),
          name: (options.name as string | undefined) ?? (options.uriTemplate as string),
        };
        const where = `runtime template "${named.uriTemplate}"`;
        const entry = McpEntryFactory.resourceTemplate(
          where,
          named,
          asHandler(this.handlerOf(where, handler), where),
          undefined,
          scopes,
        );
        return { kind: 'resourceTemplates', key: entry.definition.uriTemplate, entry };
      }
      default:
        // An event type's record (`McpEventTypes`), or a type this version does not know.
        throw new McpDefinitionError(
          `runtime ${String(type)}`,
          'not an entry of the tools, prompts or resources lists',
        );
    }
  }

  /** @internal Adds `entry` to the list `kind` (a duplicate throws), announced like any change unless held. */
  put(kind: McpListKind, entry: AnyEntry): void {
    if (kind === 'tools') this.addTool(entry as ToolEntry);
    else if (kind === 'prompts') this.addPrompt(entry as PromptEntry);
    else if (kind === 'resources') this.addResource(entry as ResourceEntry);
    else this.addResourceTemplate(entry as ResourceTemplateEntry);
  }

  /** @internal Removes and returns the entry `key` of the list `kind` (a tool with its companion prompt). */
  take(kind: McpListKind, key: string): AnyEntry | undefined {
    const entry = this.mapOf(kind).get(key) as AnyEntry | undefined;
    if (!entry) return undefined;
    if (kind === 'tools') this.removeToolHere(key);
    else this.remove(this.mapOf(kind), key, kind);
    return entry;
  }

  /** @internal Keeps a switched-off entry (`disable*`, or the shared state's `disabled` record) to restore it. */
  keepDisabled(kind: McpListKind, key: string, entry: AnyEntry): void {
    this.disabledEntries.set(`${kind}:${key}`, entry);
  }

  /** @internal The entry `keepDisabled` kept, removed from the keep. */
  takeDisabled(kind: McpListKind, key: string): AnyEntry | undefined {
    const entry = this.disabledEntries.get(`${kind}:${key}`);
    this.disabledEntries.delete(`${kind}:${key}`);
    return entry;
  }

  /**
   * @internal Runs `change` with its list changes held back; returns the kinds it changed, for `announce`. The
   * caches are invalidated at once: only the notification waits.
   */
  quietly(change: () => void): Set<McpListKind> {
    this.quiet++;
    try {
      change();
    } finally {
      this.quiet--;
    }
    const kinds = this.held;
    if (this.quiet === 0) this.held = new Set();
    return kinds;
  }

  /** @internal Announces held changes; `replayed`: they came from the shared state (see `replaying`). */
  announce(kinds: Iterable<McpListKind>, replayed: boolean): void {
    if (!this.discovered) return;
    this.replayed = replayed;
    try {
      for (const kind of kinds) this.changes.next(kind);
    } finally {
      this.replayed = false;
    }
  }

  private registerRuntime(
    type: McpRuntimeEntryType,
    options: JsonOptions,
    handler: McpRuntimeHandlerRef<never, never>,
    scopes?: readonly string[],
    uri?: string,
  ): Promise<void> {
    const { kind, key, entry } = this.runtimeEntry(type, options, handler, scopes, uri);
    if (!this.replication) {
      this.put(kind, entry);
      return Promise.resolve();
    }
    if (!isPlainJson(options)) {
      throw new McpDefinitionError(
        `runtime ${type} "${key}"`,
        'with a shared registryState its options must be plain JSON (JSON Schemas, no classes, functions or Standard Schemas): they travel to every replica',
      );
    }
    const record: McpRegistryRecord = {
      registered: {
        type,
        options,
        handler: handler as string,
        ...(scopes ? { scopes: [...scopes] } : {}),
        ...(uri !== undefined ? { uri } : {}),
      },
    };
    return this.replication.change(
      kind,
      key,
      record,
      () => this.put(kind, entry),
      () => void this.take(kind, key),
    );
  }

  /** The function a runtime registration names; a function itself only without a shared state. */
  private handlerOf(where: string, handler: McpRuntimeHandlerRef<never, never>): McpRuntimeHandler<never, never> {
    if (typeof handler === 'string') {
      const provided = this.provided.get(handler);
      if (!provided)
        throw new McpDefinitionError(
          where,
          `no handler is provided under the name "${handler}" (registry.provideHandler, on every replica)`,
        );
      return provided;
    }
    if (this.replication) {
      throw new McpDefinitionError(
        where,
        'with a shared registryState (several replicas) a runtime handler must be the name of a handler every replica provides ' +
          '(registry.provideHandler(name, fn)): a function cannot reach the other replicas, which would list an entry they cannot run',
      );
    }
    if (typeof handler !== 'function')
      throw new McpDefinitionError(where, 'the handler must be a function or the name of a provided handler');
    return handler;
  }

  private disable(kind: McpListKind, key: string): boolean {
    const entry = this.mapOf(kind).get(key) as AnyEntry | undefined;
    if (!entry) return false;
    const switchOff = () => {
      this.take(kind, key);
      this.keepDisabled(kind, key, entry);
    };
    const switchOn = () => {
      this.takeDisabled(kind, key);
      this.put(kind, entry);
    };
    if (!this.replication) switchOff();
    else void this.replication.change(kind, key, { disabled: true }, switchOff, switchOn).catch(() => undefined);
    return true;
  }

  private enable(kind: McpListKind, key: string): boolean {
    const entry = this.disabledEntries.get(`${kind}:${key}`);
    if (!entry) return false;
    const switchOn = () => {
      this.takeDisabled(kind, key);
      this.put(kind, entry);
    };
    const switchOff = () => {
      this.take(kind, key);
      this.keepDisabled(kind, key, entry);
    };
    if (!this.replication) switchOn();
    else void this.replication.change(kind, key, undefined, switchOn, switchOff).catch(() => undefined);
    return true;
  }

  private mapOf(kind: McpListKind): Map<string, AnyEntry> {
    if (kind === 'tools') return this.tools;
    if (kind === 'prompts') return this.prompts;
    if (kind === 'resources') return this.resources;
    return this.templates;
  }

  /** @internal Adds a built tool entry, and its companion prompt; a duplicate name (tool or prompt) throws. */
  addTool(entry: ToolEntry): void {
    const companion = entry.companion;
    // Checked first, so that a clash leaves neither the tool nor the prompt behind.
    if (companion && this.prompts.has(companion.definition.name)) {
      throw new Error(
        `nest-mcp: duplicate prompt "${companion.definition.name}" (companion of tool "${entry.definition.name}"): each prompt must be registered once`,
      );
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

  /**
   * Removes a tool by name, and its companion prompt; returns whether it existed. With a shared `registryState` it is
   * removed on every replica (`await settled()` to wait until it is); a declared one is switched off there.
   */
  removeTool(name: string): boolean {
    if (this.replication) return this.removeShared('tools', name);
    return this.removeToolHere(name);
  }

  /** Removes a tool, and its companion prompt, from this process's lists only. */
  private removeToolHere(name: string): boolean {
    const companion = this.tools.get(name)?.companion;
    const existed = this.remove(this.tools, name, 'tools');
    if (companion && this.prompts.get(companion.definition.name) === companion)
      this.remove(this.prompts, companion.definition.name, 'prompts');
    return existed;
  }

  /** Removes a prompt by name; returns whether it existed (see `removeTool` for several replicas). */
  removePrompt(name: string): boolean {
    if (this.replication) return this.removeShared('prompts', name);
    return this.remove(this.prompts, name, 'prompts');
  }

  /** Removes a static resource by URI; returns whether it existed (see `removeTool` for several replicas). */
  removeResource(uri: string): boolean {
    if (this.replication) return this.removeShared('resources', uri);
    return this.remove(this.resources, uri, 'resources');
  }

  /** Removes a resource template; returns whether it existed (see `removeTool` for several replicas). */
  removeResourceTemplate(uriTemplate: string): boolean {
    if (this.replication) return this.removeShared('resourceTemplates', uriTemplate);
    return this.remove(this.templates, uriTemplate, 'resourceTemplates');
  }

  /** A removal for every replica: a runtime entry's record goes; a declared entry is recorded as switched off. */
  private removeShared(kind: McpListKind, key: string): boolean {
    const entry = this.mapOf(kind).get(key);
    if (!entry) return false;
    if (!this.replication!.isRuntime(kind, key)) return this.disable(kind, key);
    void this.replication!.change(
      kind,
      key,
      undefined,
      () => void this.take(kind, key),
      () => this.put(kind, entry),
    ).catch(() => undefined);
    return true;
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
    if (this.quiet > 0) this.held.add(kind);
    else if (this.discovered) this.changes.next(kind);
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

/** Options of a runtime registration, as the registry reads them. */
type JsonOptions = Record<string, unknown> & { name?: string };

/** Locale-independent ordering, so lists are identical on every machine. */
const compareCodePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
