import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MCP_MODULE_OPTIONS_EXTRAS } from './config/mcp-extras.constants.js';
import {
  MCP_ASYNC_OPTIONS_TYPE,
  MCP_OPTIONS_TYPE,
  MCP_MODULE_OPTIONS,
  McpConfigurableModuleClass,
} from './config/mcp-module-definition.js';
import type { McpModuleExtras, McpModuleOptions } from './config/mcp-options.interface.js';
import { mcpServerToken, type McpServerPart } from './config/server-tokens.js';
import { checkServerScope } from './config/server-scope.js';
import { McpServerScope } from './discovery/server-scope.js';
import { McpResolvedOptions } from './config/resolved-options.js';
import { McpAuthenticator } from './auth/mcp-authenticator.service.js';
import { McpHandlerFactory } from './context/mcp-handler.factory.js';
import { McpExplorer } from './discovery/mcp.explorer.js';
import { McpMetadataAccessor } from './discovery/mcp-metadata.accessor.js';
import { McpRegistry } from './discovery/mcp.registry.js';
import { McpMrtrService } from './mrtr/mrtr.service.js';
import { RequestStateCodec } from './mrtr/request-state.codec.js';
import { McpHandlerInvoker } from './server/handler.invoker.js';
import { PrincipalBindingCheck } from './server/principal-binding.check.js';
import { InMemoryEventBus } from './subscriptions/in-memory-event-bus.js';
import { MCP_EVENT_BUS } from './protocol/mcp-event-bus.interface.js';
import { MCP_REGISTRY_STATE } from './protocol/registry-state.interface.js';
import { MCP_TASK_STORE } from './protocol/task-store.interface.js';
import { MCP_LISTENER_VISIBILITY } from './protocol/listener-visibility.interface.js';
import { McpPublisher } from './subscriptions/mcp.publisher.js';
import { McpSubscriptionsService } from './subscriptions/subscriptions.service.js';
import { McpSessionStore } from './legacy/legacy-session.store.js';
import { McpLegacyWireService } from './legacy/legacy-wire.service.js';
import { McpLegacyTasks } from './legacy/legacy-tasks.service.js';
import { LegacyTaskWire } from './tasks/legacy-task.wire.js';
import { McpAccessPolicy } from './server/access.policy.js';
import { ScopesWithoutAuthCheck } from './server/scopes-without-auth.check.js';
import { McpCompletionService } from './server/completion.service.js';
import { McpDiscoverService } from './server/discover.service.js';
import { McpListsService } from './server/lists.service.js';
import { McpCallRunner } from './server/call.runner.js';
import { telemetryProviders } from './telemetry/telemetry.providers.js';
import { McpCallTracker } from './server/call.tracker.js';
import { McpDispatcher } from './server/mcp.dispatcher.js';
import { McpPromptsService } from './server/prompts.service.js';
import { McpResourcesService } from './server/resources.service.js';
import { McpToolsService } from './server/tools.service.js';
import { BodyCaptureInstaller } from './transport/http/body-capture.installer.js';
import { McpLegacyHttpHandler } from './transport/http/legacy-session-http.handler.js';
import { createMcpHttpController } from './transport/http/mcp-http.controller.js';
import { McpHttpTransport } from './transport/http/mcp-http.transport.js';
import { McpPlaygroundPages } from './playground/playground.pages.js';
import { McpRequestGate } from './transport/http/request-gate.service.js';
import { ProtectedResourceMetadataInstaller } from './transport/http/protected-resource-metadata.installer.js';
import { McpStdioTransport } from './transport/stdio/mcp-stdio.transport.js';
import { taskProviders } from './tasks/tasks.providers.js';
import { McpTaskMethods } from './tasks/task-methods.service.js';
import { skillProviders } from './skills/skills.providers.js';
import { McpSkillMethods } from './skills/skill-methods.service.js';
import { eventProviders } from './events/events.providers.js';
import { McpEventsExtension } from './events/events.extension.js';
import { McpEvents } from './events/mcp-events.service.js';
import { McpEventTypes } from './events/event-types.registry.js';
import { MCP_EXTENSIONS, type McpExtension } from './server/extension.interface.js';
import { McpAppsExtension } from './server/apps.extension.js';
import { McpModernWire } from './server/modern-wire.profile.js';
import { McpLegacyWire } from './legacy/legacy-wire.profile.js';

const DEFAULT_PATH = '/mcp';

/**
 * Serves MCP from the decorated methods of your providers.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [McpModule.forRoot({ name: 'weather', version: '1.0.0' })],
 *   providers: [WeatherTools],
 * })
 * export class AppModule {}
 * ```
 */
@Module({})
export class McpModule extends McpConfigurableModuleClass {
  /**
   * Configures the server with static options. `path` (default `/mcp`) is the endpoint; `include` limits it to the
   * handlers of some modules (several servers in one app, docs/servers.md). Its `name` names its injection tokens
   * (`@InjectMcpRegistry(name)`, `@InjectMcpPublisher(name)`) and the testing kit's `server` option.
   */
  static forRoot(options: typeof MCP_OPTIONS_TYPE): DynamicModule {
    return withServer(super.forRoot(options), options.path, options.isGlobal, options.include, options.name);
  }

  /**
   * Configures the server with options from a factory (e.g. `ConfigService`); `path`, `isGlobal`, `include` stay
   * static, and so does `name` when given here (for the per-server tokens; the factory's `name` is the server's).
   */
  static forRootAsync(options: typeof MCP_ASYNC_OPTIONS_TYPE & { name?: string }): DynamicModule {
    const { name, ...async } = options;
    return withServer(super.forRootAsync(async), options.path, options.isGlobal, options.include, name);
  }
}

function withServer(
  definition: DynamicModule,
  path = DEFAULT_PATH,
  isGlobal = true,
  include?: McpModuleExtras['include'],
  name?: string,
): DynamicModule {
  return {
    ...definition,
    global: isGlobal,
    imports: [...(definition.imports ?? []), DiscoveryModule],
    controllers: [createMcpHttpController(path)],
    exports: [
      McpRegistry,
      McpPublisher,
      MCP_EVENT_BUS,
      MCP_TASK_STORE,
      McpEvents,
      McpEventTypes,
      ...(name ? serverTokens(name).map((provider) => provider.provide) : []),
    ],
    providers: [
      ...(name ? serverTokens(name) : []),
      McpServerScope,
      ...(definition.providers ?? []),
      { provide: MCP_MODULE_OPTIONS_EXTRAS, useValue: { path, include } },
      McpResolvedOptions,
      // Built from the `auth` option (checked here, at startup): the bearer check and the metadata document.
      McpAuthenticator,
      McpRegistry,
      McpMetadataAccessor,
      McpHandlerFactory,
      McpExplorer,
      RequestStateCodec,
      McpMrtrService,
      PrincipalBindingCheck,
      McpHandlerInvoker,
      McpDiscoverService,
      McpAccessPolicy,
      // Listen streams and session subscriptions hear only of the URIs their caller may read.
      { provide: MCP_LISTENER_VISIBILITY, useExisting: McpAccessPolicy },
      ScopesWithoutAuthCheck,
      McpListsService,
      McpToolsService,
      McpPromptsService,
      McpResourcesService,
      McpCompletionService,
      {
        provide: MCP_EVENT_BUS,
        useFactory: (options: McpModuleOptions) => options.eventBus ?? new InMemoryEventBus(),
        inject: [MCP_MODULE_OPTIONS],
      },
      {
        provide: MCP_REGISTRY_STATE,
        // Refuses, at startup, a registry state, event bus, task or events backend that is another server's
        // (config/server-scope.ts): every server instantiates its registry state, so the check always runs.
        useFactory: (options: McpModuleOptions) => {
          checkServerScope(options, options.name, include);
          return options.registryState;
        },
        inject: [MCP_MODULE_OPTIONS],
      },
      McpPublisher,
      McpSubscriptionsService,
      ...taskProviders(),
      ...skillProviders(),
      ...eventProviders(),
      McpAppsExtension,
      // Every extension, in the order server/discover lists them (this provider of the token comes last, so it is
      // the one Nest keeps).
      {
        provide: MCP_EXTENSIONS,
        useFactory: (...extensions: McpExtension[]) => extensions,
        inject: [McpTaskMethods, McpAppsExtension, McpSkillMethods, McpEventsExtension],
      },
      McpDispatcher,
      // The two wires a call may speak (server/wire-profile.interface.ts), chosen once per call by its transport.
      McpModernWire,
      McpLegacyWire,
      McpCallTracker,
      ...telemetryProviders,
      McpCallRunner,
      McpSessionStore,
      McpLegacyTasks,
      // The 2025-11-25 face of the tasks extension (tasks/legacy-task.wire.ts).
      { provide: LegacyTaskWire, useExisting: McpLegacyTasks },
      McpLegacyWireService,
      McpLegacyHttpHandler,
      // The playground's documents (docs/playground.md), built once when it is on.
      McpPlaygroundPages,
      McpRequestGate,
      McpHttpTransport,
      McpStdioTransport,
      BodyCaptureInstaller,
      ProtectedResourceMetadataInstaller,
    ],
  };
}

/** The parts of the server called `name` under tokens of their own (`config/server-tokens.ts`). */
function serverTokens(name: string) {
  const parts: Array<[McpServerPart, unknown]> = [
    ['registry', McpRegistry],
    ['publisher', McpPublisher],
    ['runner', McpCallRunner],
    ['dispatcher', McpDispatcher],
    ['wire', McpModernWire],
    ['options', McpResolvedOptions],
    ['extras', MCP_MODULE_OPTIONS_EXTRAS],
    ['stdio', McpStdioTransport],
  ];
  return parts.map(([part, existing]) => ({ provide: mcpServerToken(name, part), useExisting: existing as string }));
}
