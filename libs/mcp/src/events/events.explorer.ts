import { McpServerScope } from '../discovery/server-scope.js';
import { Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { McpMetadataAccessor } from '../discovery/mcp-metadata.accessor.js';
import { McpEventDefinitionError } from './event-definition.error.js';
import { McpEventMetadataAccessor } from './event-metadata.accessor.js';
import { createEventType } from './event-type.factory.js';
import { McpEventTypes } from './event-types.registry.js';
import type { McpEventMatcher } from './mcp-event.decorator.js';

type Method = (...args: unknown[]) => unknown;

/**
 * Finds the `@McpEvent` methods of every provider at bootstrap, checks them and fills `McpEventTypes`; each method is
 * its type's matcher, called on its provider. Misuse (a bad name, a name declared twice, a method that is also a tool,
 * prompt or resource, `poll` without replay) fails bootstrap naming the class and method.
 */
@Injectable()
export class McpEventsExplorer implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpEvents');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpEventMetadataAccessor,
    private readonly metadata: McpMetadataAccessor,
    private readonly types: McpEventTypes,
    // Absent only where the explorer is built alone (unit tests): then every handler is this server's.
    @Optional() private readonly scope?: McpServerScope,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as object | undefined;
      // Request-scoped providers have no instance here: an event matcher runs outside any request.
      if (!instance || typeof instance !== 'object' || seen.has(instance) || this.scope?.serves(wrapper) === false)
        continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) this.explore(instance, methodName);
    }
    // With a shared registry state, the catalog applies it before the server takes requests.
    await this.types.completeDiscovery();
    if (this.types.advertised) this.logger.log(`Mapped ${this.types.list().length} event types`);
  }

  private explore(instance: object, methodName: string): void {
    const method = (instance as Record<string, Method>)[methodName];
    const options = this.accessor.getEventOptions(method);
    if (!options) return;
    const where = `${instance.constructor.name}.${methodName}`;
    const other = [
      this.metadata.getToolOptions(method),
      this.metadata.getPromptOptions(method),
      this.metadata.getResourceOptions(method),
      this.metadata.getResourceTemplateOptions(method),
      this.metadata.getAppViewOptions(method),
    ];
    if (other.some(Boolean))
      throw new McpEventDefinitionError(
        where,
        'a method can be an event type or a tool, prompt, resource, template or view, not both',
      );
    const match: McpEventMatcher = (data, args, context) => method.call(instance, data, args, context);
    const scopes = this.metadata.getScopes(method, instance.constructor);
    this.types.add(
      where,
      createEventType(where, { ...options, name: options.name ?? methodName }, match, instance, scopes),
    );
  }
}
