import { Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { McpServerScope } from './server-scope.js';
import { McpHandlerFactory } from '../context/mcp-handler.factory.js';
import type { McpToolOptions } from '../decorators/mcp-tool.decorator.js';
import { McpDefinitionError } from './mcp-definition.error.js';
import { McpEntryFactory } from './mcp-entry.factory.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { McpRegistry } from './mcp.registry.js';
import { readRouteTool } from './route-tool.reader.js';

/**
 * Finds `@McpTool`, `@McpPrompt`, `@McpResource`, `@McpResourceTemplate` and `@McpAppView` methods on every provider
 * and controller at bootstrap, checks them, and fills the registry. Any misuse fails bootstrap with a message that
 * names the class and method — a tool whose MCP Apps view no `@McpAppView` serves included. A controller route with
 * `@McpTool()` is a route tool: it serves both HTTP and `tools/call`.
 */
@Injectable()
export class McpExplorer implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpExplorer');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpMetadataAccessor,
    private readonly handlers: McpHandlerFactory,
    private readonly registry: McpRegistry,
    // Absent only where the explorer is built alone (unit tests): then every handler is this server's.
    @Optional() private readonly scope?: McpServerScope,
  ) {}

  /** Where each decorated tool was declared, to name it when its MCP Apps view is checked. */
  private readonly toolsDeclared = new Map<string, string>();

  /** Registers every decorated handler; with a shared registry state, resolves once the registry applied it. */
  onApplicationBootstrap(): Promise<void> | undefined {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    const seen = new Set<object>();
    for (const wrapper of wrappers) {
      const instance = wrapper.instance as object | undefined;
      // Skip wrappers without an instance yet (e.g. async factories not resolved) and aliases of one instance.
      if (!instance || typeof instance !== 'object' || seen.has(instance)) continue;
      // With `include`, another server's handlers are not this one's.
      if (this.scope?.serves(wrapper) === false) continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as object;
      if (!prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        this.exploreMethod(wrapper, instance, methodName);
      }
    }
    this.checkViews();
    this.logger.log(
      `Mapped ${this.registry.listTools().length} tools, ${this.registry.listPrompts().length} prompts, ` +
        `${this.registry.listResources().length} resources, ${this.registry.listResourceTemplates().length} resource templates`,
    );
    return this.registry.completeDiscovery();
  }

  /** Every view a tool names must be served, as an MCP Apps view (decorated tools and those registered earlier). */
  private checkViews(): void {
    for (const tool of this.registry.listTools()) {
      const name = tool.definition.name;
      this.registry.checkView(this.toolsDeclared.get(name) ?? `runtime tool "${name}"`, tool);
    }
    this.toolsDeclared.clear();
  }

  private exploreMethod(wrapper: InstanceWrapper, instance: object, methodName: string): void {
    const method = (instance as Record<string, Method>)[methodName];
    const where = `${instance.constructor.name}.${methodName}`;
    const tool = this.accessor.getToolOptions(method);
    const prompt = this.accessor.getPromptOptions(method);
    const resource = this.accessor.getResourceOptions(method);
    const template = this.accessor.getResourceTemplateOptions(method);
    const view = this.accessor.getAppViewOptions(method);
    const kinds = [tool, prompt, resource, template, view].filter(Boolean).length;
    if (kinds === 0) return;
    if (kinds > 1) {
      throw new McpDefinitionError(
        where,
        'a method can be only one of tool, prompt, resource, resource template or app view',
      );
    }
    if (this.accessor.isRoute(method, instance.constructor)) {
      if (!tool) {
        throw new McpDefinitionError(
          where,
          'a controller route can be an MCP tool (@McpTool), not a prompt, resource, resource template or app view',
        );
      }
      this.exploreRouteTool(wrapper, instance, methodName, method, tool);
      return;
    }
    const handler = this.handlers.create(wrapper, methodName);
    try {
      const scopes = this.accessor.getScopes(method, instance.constructor);
      if (tool) {
        const entry = McpEntryFactory.tool(
          where,
          { ...tool, name: tool.name ?? methodName },
          handler,
          instance,
          scopes,
        );
        this.registry.addTool(entry);
        this.toolsDeclared.set(entry.definition.name, where);
      }
      if (view) {
        this.registry.addResource(
          McpEntryFactory.appView(where, { ...view, name: view.name ?? methodName }, handler, scopes),
        );
      }
      if (prompt) {
        const options = { ...prompt, name: prompt.name ?? methodName };
        this.registry.addPrompt(McpEntryFactory.prompt(where, options, handler, instance, scopes));
      }
      if (resource) {
        const options = { ...resource, name: resource.name ?? methodName };
        this.registry.addResource(McpEntryFactory.resource(where, options, handler, scopes));
      }
      if (template) {
        const options = { ...template, name: template.name ?? methodName };
        this.registry.addResourceTemplate(McpEntryFactory.resourceTemplate(where, options, handler, instance, scopes));
      }
    } catch (error) {
      if (error instanceof McpDefinitionError) throw error;
      throw new McpDefinitionError(where, (error as Error).message);
    }
  }

  /**
   * A controller route that is also a tool (`@McpTool()` beside `@Get()`…): the same method answers HTTP through
   * Nest's router and `tools/call` through the route's own guards, interceptors and pipes; its parameters give the
   * tool's input schema unless `input` is declared (`readRouteTool`).
   */
  private exploreRouteTool(
    wrapper: InstanceWrapper,
    instance: object,
    methodName: string,
    method: Method,
    tool: McpToolOptions,
  ): void {
    const type = instance.constructor;
    const where = `${type.name}.${methodName}`;
    const name = tool.name ?? methodName;
    if (this.accessor.isSseRoute(method)) {
      throw new McpDefinitionError(
        where,
        'an @Sse() route streams events to one HTTP client and cannot be an MCP tool',
      );
    }
    if (this.accessor.hasMcpParams(type, methodName)) {
      throw new McpDefinitionError(
        where,
        'MCP parameter decorators (@McpArgs, @McpCtx, @McpHttpRequest…) do not apply to a controller route: take the ' +
          'arguments with @Body(), @Query(), @Param() and the context with getMcpInvocationContext(request)',
      );
    }
    try {
      const { binding, input } = readRouteTool({
        where,
        toolName: name,
        params: this.accessor.getRouteParams(type, methodName),
        paramTypes: this.accessor.getParamTypes(type, methodName),
        length: method.length,
        declaresInput: tool.input !== undefined,
      });
      const handler = this.handlers.createRoute(wrapper, methodName, binding);
      const scopes = this.accessor.getScopes(method, type);
      const entry = McpEntryFactory.tool(where, { ...tool, name, ...(input && { input }) }, handler, instance, scopes);
      this.registry.addTool(entry);
      this.toolsDeclared.set(entry.definition.name, where);
    } catch (error) {
      if (error instanceof McpDefinitionError) throw error;
      throw new McpDefinitionError(where, (error as Error).message);
    }
  }
}

type Method = (...args: unknown[]) => unknown;
