import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { TASKS_EXTENSION } from '../protocol/task.constants.js';

/** `server/discover` and the server capabilities that gate every other method. */
@Injectable()
export class McpDiscoverService {
  constructor(
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
  ) {}

  private cached?: { version: number; capabilities: JsonObject };

  /**
   * What this server implements right now: a feature is advertised when something of its kind is registered.
   * Computed once per registry version (it gates every request). Treat the result as read-only.
   *
   * Capabilities are server-wide, never filtered per caller (`@McpScopes`, the `visibility` hook): a caller that may
   * see no tool still finds `tools` advertised and gets an empty `tools/list`, rather than `-32601` for a method that
   * exists. So `server/discover` does not depend on the caller and keeps the configured `cacheHints.discover`;
   * the lists are what is filtered (and `cacheScope: "private"`).
   */
  capabilities(): JsonObject {
    if (this.cached?.version === this.registry.version) return this.cached.capabilities;
    const capabilities = this.computeCapabilities();
    this.cached = { version: this.registry.version, capabilities };
    return capabilities;
  }

  private computeCapabilities(): JsonObject {
    const capabilities: JsonObject = {};
    const hasPrompts = this.registry.listPrompts().length > 0;
    const hasResources = this.registry.listResources().length > 0 || this.registry.listResourceTemplates().length > 0;
    // listChanged / subscribe: honoured on subscriptions/listen streams.
    const tools = this.registry.listTools();
    if (tools.length > 0) capabilities.tools = { listChanged: true };
    // ext-tasks: the value is exactly {} (no settings are defined); advertised once a tool can run as a task.
    if (tools.some((tool) => tool.task !== undefined)) capabilities.extensions = { [TASKS_EXTENSION]: {} };
    if (hasPrompts) capabilities.prompts = { listChanged: true };
    if (hasResources) capabilities.resources = { subscribe: true, listChanged: true };
    if (hasPrompts || hasResources) capabilities.completions = {};
    // Handlers may log through ctx.log (only to requests that opt in with a log level).
    capabilities.logging = {};
    return capabilities;
  }

  discover(): JsonObject {
    return {
      supportedVersions: [...this.options.supportedVersions],
      capabilities: this.capabilities(),
      ...(this.options.instructions !== undefined && { instructions: this.options.instructions }),
      ...this.options.cacheHintsFor('discover'),
    };
  }
}
