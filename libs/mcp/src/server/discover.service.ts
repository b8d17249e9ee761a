import { Inject, Injectable, Optional } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { AccessControlled } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpCaller } from '../protocol/mcp-caller.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpAccessPolicy, type McpCallerSource } from './access.policy.js';
import { MCP_EXTENSIONS, type McpExtension } from './extension.interface.js';

/** `server/discover` and the server capabilities that gate every other method. */
@Injectable()
export class McpDiscoverService {
  constructor(
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
    private readonly access: McpAccessPolicy,
    @Optional() @Inject(MCP_EXTENSIONS) private readonly extensions: readonly McpExtension[] = [],
  ) {}

  private cached?: { version: string; capabilities: JsonObject };

  /**
   * What this server implements right now: a feature is advertised when something of its kind is registered.
   * Computed once per registry version (it gates every request). Treat the result as read-only.
   *
   * These capabilities gate methods, server-wide: a method of a feature the server has exists for every caller (one
   * that may see no tool gets an empty `tools/list`, never `-32601`). What `server/discover` *shows* a caller is
   * filtered (`discover`).
   */
  capabilities(): JsonObject {
    const version = this.version();
    if (this.cached?.version === version) return this.cached.capabilities;
    const capabilities = this.computeCapabilities();
    this.cached = { version, capabilities };
    return capabilities;
  }

  /** The registry's version and every extension's revision: what the capabilities are computed from. */
  private version(): string {
    let version = String(this.registry.version);
    for (const extension of this.extensions) if (extension.revision) version += `.${extension.revision()}`;
    return version;
  }

  private computeCapabilities(caller?: McpCaller): JsonObject {
    const capabilities: JsonObject = {};
    const visible = <T extends AccessControlled>(entries: readonly T[]): readonly T[] =>
      caller === undefined ? entries : entries.filter((entry) => this.access.isVisible(entry.summary, caller));
    const hasPrompts = visible(this.registry.listPrompts()).length > 0;
    const hasResources =
      visible(this.registry.listResources()).length > 0 || visible(this.registry.listResourceTemplates()).length > 0;
    // listChanged / subscribe: honoured on subscriptions/listen streams.
    const tools = visible(this.registry.listTools());
    if (tools.length > 0) capabilities.tools = { listChanged: true };
    // Each extension says what it advertises for what this caller may see (McpExtension.advertise).
    const extensions: JsonObject = {};
    const required = new Set<string>();
    const view = { tools };
    for (const extension of this.extensions) {
      const entry = extension.advertise(view);
      if (entry === undefined) continue;
      extensions[extension.id] = entry;
      Object.assign(capabilities, extension.capabilities?.());
      for (const capability of extension.requiredCapabilities?.() ?? []) required.add(capability);
    }
    if (Object.keys(extensions).length > 0) capabilities.extensions = extensions;
    if (hasPrompts) capabilities.prompts = { listChanged: true };
    // An extension that needs `resources` (skills) keeps it even for a caller who may see no resource.
    if (hasResources || required.has('resources')) capabilities.resources = { subscribe: true, listChanged: true };
    if (hasPrompts || hasResources) capabilities.completions = {};
    // Handlers may log through ctx.log (only to requests that opt in with a log level), unless `logging: false`.
    if (this.options.logging) capabilities.logging = {};
    return capabilities;
  }

  /**
   * The `server/discover` result for the caller of `scope`. When what callers may see differs (`auth`, `@McpScopes`,
   * the `visibility` hook), its capabilities show only the features the caller can use (`tools` only if it may see a
   * tool, the tasks extension only if it may see a task tool…) and it is `cacheScope: "private"`; otherwise it is the
   * same for everyone, with `cacheHints.discover`.
   */
  discover(scope?: McpRequestScope): JsonObject {
    const perCaller = scope !== undefined && this.filtersPerCaller();
    const hints = this.options.cacheHintsFor('discover');
    return {
      supportedVersions: [...this.options.supportedVersions],
      capabilities: perCaller ? this.computeCapabilities(this.access.callerOf(scope)) : this.capabilities(),
      ...(this.options.instructions !== undefined && { instructions: this.options.instructions }),
      ...hints,
      ...(perCaller && { cacheScope: 'private' }),
    };
  }

  /**
   * The capabilities the caller of `source` is shown: exactly what `server/discover` shows it (the features it may
   * use), or `capabilities()` when every caller sees the same. The 2025-11-25 `initialize` advertises these.
   */
  capabilitiesFor(source: McpCallerSource): JsonObject {
    return this.filtersPerCaller() ? this.computeCapabilities(this.access.callerOf(source)) : this.capabilities();
  }

  /** Whether some caller may see less than another (then discover is answered per caller). */
  private filtersPerCaller(): boolean {
    const lists = [
      this.registry.listTools(),
      this.registry.listPrompts(),
      this.registry.listResources(),
      this.registry.listResourceTemplates(),
    ];
    return lists.some((entries) => this.access.listMode(entries) !== 'shared');
  }
}
