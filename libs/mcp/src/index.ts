/*
 * The public API of nest-mcp. Everything else is internal and may change without notice.
 */
export { McpModule } from './mcp.module.js';
export type { McpModuleOptions, McpModuleExtras, McpCacheHintOptions, McpRequestStateOptions, McpStreamingOptions } from './config/mcp-options.interface.js';
export { McpStdio } from './transport/stdio/mcp-stdio.bootstrap.js';
export type { McpStdioOptions, McpStdioServer } from './transport/stdio/mcp-stdio-options.interface.js';
export { McpStderrLogger } from './transport/stdio/stderr.logger.js';
export { redirectStdout, type StdoutRedirection } from './transport/stdio/stdout.guard.js';

export { McpTool, type McpToolOptions, type McpToolTaskSupport, type McpBeforeTaskHook } from './decorators/mcp-tool.decorator.js';
export { McpPrompt, type McpPromptOptions, type McpPromptArgumentOptions } from './decorators/mcp-prompt.decorator.js';
export { McpResource, type McpResourceOptions } from './decorators/mcp-resource.decorator.js';
export { McpResourceTemplate, type McpResourceTemplateOptions } from './decorators/mcp-resource-template.decorator.js';
export { McpArgs, McpCtx, McpHttpRequest } from './decorators/mcp-params.decorator.js';
export type {
  McpCompletionContext,
  McpCompletionProvider,
  McpCompletionReturn,
} from './decorators/completion-provider.interface.js';

export { MrtrContext } from './context/mrtr.context.js';
export { McpToolContext } from './context/mcp-tool.context.js';
export { McpPromptContext } from './context/mcp-prompt.context.js';
export { McpResourceContext } from './context/mcp-resource.context.js';
export { McpExecutionContext, MCP_CONTEXT_TYPE } from './context/mcp-execution-context.js';

export {
  DoubleProgress,
  LongProgress,
  CountingProgress,
  PercentProgress,
  IllegalProgressError,
  type McpProgressSource,
  type ProgressEvent,
  createProgressEvent,
  formatProgressEvent,
  parseProgressLine,
  type ProgressReport,
  type ProgressLine,
  ProgressEventWriter,
} from './progress/index.js';
export { parseTraceparent, type TraceIds } from './protocol/traceparent.parser.js';

export { McpInput, canElicit } from './mrtr/input-request.builders.js';
export { McpForm, FormSchema, type FormField, type InferForm, type TitledOption } from './mrtr/form-schema.builder.js';
export type { McpInputRequest } from './mrtr/input-request.interface.js';
export { InputRequiredSignal, isInputRequired } from './mrtr/input-required.signal.js';
export type { FormAnswer, UrlAnswer, SamplingAnswer, RootsAnswer, SamplingRequestParams } from './mrtr/input-answers.interface.js';
export type { McpElicitor, McpAnswers } from './mrtr/mcp-elicitor.interface.js';
export type { McpRequestStateStore } from './protocol/request-state-store.interface.js';
export { InMemoryRequestStateStore, type InMemoryRequestStateStoreOptions } from './mrtr/in-memory-request-state.store.js';

export { getMcpPublisherToken, getMcpRegistryToken, InjectMcpPublisher, InjectMcpRegistry } from './config/server-tokens.js';
export { McpRegistry, type McpListKind, type McpRuntimeHandler, type McpRuntimeHandlerRef } from './discovery/mcp.registry.js';
export { McpPublisher, type McpPublishOptions } from './subscriptions/mcp.publisher.js';
export { MCP_EVENT_BUS, type McpEventBus } from './protocol/mcp-event-bus.interface.js';
export {
  MCP_REGISTRY_STATE,
  type McpRegistryRecord,
  type McpRegistrySnapshot,
  type McpRegistryState,
  type McpRuntimeEntryType,
} from './protocol/registry-state.interface.js';
export { InMemoryEventBus } from './subscriptions/in-memory-event-bus.js';
export type { McpChangeEvent, McpEventAudience } from './protocol/mcp-event.interface.js';
export type { McpDeliveryAuthorizer, McpListener } from './protocol/delivery-authorizer.interface.js';
export type { McpTasksOptions } from './config/mcp-options.interface.js';
// The playground (issue #29): a page in the browser at the endpoint (docs/playground.md).
export type { McpPlaygroundOptions } from './config/mcp-options.interface.js';
export { MCP_TASK_STORE, type McpTaskStore } from './protocol/task-store.interface.js';
export { MCP_TASK_RUNNER, type McpTaskRunner, type McpTaskExecutor } from './protocol/task-runner.interface.js';
export { isTerminalTaskStatus, type McpTaskRecord, type McpTaskStatus, type McpTaskInputRequest, type McpTaskError } from './protocol/task-record.interface.js';
export { TASKS_EXTENSION } from './protocol/task.constants.js';
export { InMemoryTaskStore, InMemoryTaskRunner, McpTaskWorker, type InMemoryTaskStoreLimits } from './tasks/index.js';
export { McpDefinitionError } from './discovery/mcp-definition.error.js';

export { McpContent } from './server/mcp-content.js';
export { McpToolError } from './server/mcp-tool.error.js';

export { McpError } from './protocol/mcp.error.js';
export { McpErrorCode } from './protocol/error-codes.enum.js';
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './protocol/protocol-version.constants.js';
export { MetaKeys, McpHeaders } from './protocol/meta-keys.constants.js';
export { UriTemplate, UriTemplateSyntaxError, type UriTemplateVariables } from './protocol/uri-template.js';
export { isResourceUri, MAX_URI_LENGTH } from './protocol/uri.util.js';
export type * from './protocol/mcp-wire.interface.js';
export { MCP_LOG_LEVELS } from './protocol/mcp-wire.interface.js';

export type { SchemaInput, JsonSchemaObject } from './schema/index.js';
export { SchemaDefinitionError } from './schema/index.js';

// Authorization, handler side (issue #17): scopes per handler, per-caller visibility, the caller in handlers and guards.
export { McpScopes } from './decorators/mcp-scopes.decorator.js';
export { McpPrincipal, McpToken } from './decorators/mcp-params.decorator.js';
export type { McpCaller, McpHandlerKind, McpHandlerSummary, McpVisibilityHook } from './protocol/mcp-caller.interface.js';
export type { McpRuntimeHandlerOptions } from './discovery/mcp.registry.js';

// Authorization, HTTP side (issue #17): the `auth` option, verified tokens, the built-in verifiers, refusals.
export type { McpAuthOptions, McpJwtOptions, McpIntrospectionOptions } from './config/mcp-options.interface.js';
export { McpAuthError, McpTokenError, type McpAccessToken, type McpTokenVerifier } from './protocol/access-token.interface.js';
export { JwtTokenVerifier, type JwtTokenVerifierOptions, type JwtTokenVerifierSettings } from './auth/jwt-token.verifier.js';
export {
  IntrospectionTokenVerifier,
  type IntrospectionTokenVerifierOptions,
  type IntrospectionTokenVerifierSettings,
} from './auth/introspection-token.verifier.js';

// Seed parity (issue #19): handler state across input rounds, input fallbacks, logging defaults, the emitter names of
// the progress-emitter design (ADR 0021).
export type { McpElicitOptions } from './mrtr/elicit-options.interface.js';
export type { McpInputKind } from './mrtr/input-kind.js';
export type { McpLoggingOptions } from './config/mcp-options.interface.js';
export type {
  DoubleProgressEmitter,
  LongProgressEmitter,
  CountingProgressEmitter,
  PercentageCompleteProgressEmitter,
  PercentProgressEmitter,
} from './progress/index.js';

// Skills (issue #18, SEP-2640 `io.modelcontextprotocol/skills`): skills from folders (`skills` option) and providers.
export type { McpSkillsOptions, McpSkillRoot } from './config/mcp-options.interface.js';
export { McpSkill, type McpSkillOptions, type McpSkillFiles, McpSkillDefinitionError, SKILLS_EXTENSION } from './skills/index.js';

// MCP Apps (issue #18, `io.modelcontextprotocol/ui`): tools with views, app-only tools, companion prompts.
export { McpAppView, type McpAppViewMetadata } from './decorators/mcp-app-view.decorator.js';
export type {
  McpAppVisibility,
  McpToolAppOptions,
  McpAppCsp,
  McpAppPermissions,
  McpAppViewOptions,
  McpCompanionPromptOptions,
  McpCompanionPromptMessages,
} from './decorators/mcp-app-options.interface.js';
export {
  McpAppViews,
  MCP_APPS_EXTENSION,
  MCP_APP_MIME_TYPE,
  MCP_APP_RESOURCE_URI_META_KEY,
  DEFAULT_APP_VIEW_TTL_MS,
  declaresApps,
  withAppsExtension,
} from './apps/index.js';

// Controller routes as tools (issue #19, item 1): `@McpTool()` beside `@Get()`…, and the MCP context of a route call.
export { getMcpInvocationContext } from './context/mcp-invocation-context.js';

// Events (issue #26, SEP-3415 `io.modelcontextprotocol/events`): event types on providers, the emitter, the contracts
// of the replay log, webhook subscriptions and deliveries, and their in-memory defaults.
export type { McpEventsOptions, McpWebhookOptions } from './config/mcp-options.interface.js';
export {
  McpEvent,
  McpEvents,
  McpEventTypes,
  McpEventDefinitionError,
  InMemoryEventStore,
  InMemoryWebhookSubscriptionStore,
  InMemoryWebhookDeliveryQueue,
  EVENTS_EXTENSION,
  EVENTS_PROFILES,
  EVENT_DELIVERY_MODES,
  type McpEventOptions,
  type McpEventMatcher,
  type McpEventMatchContext,
  type McpEventAuthorizer,
  type McpEventReplayOptions,
  type McpEventDeliveryMode,
  type McpEventTypeAccess,
  type McpEventTypeDescriptor,
  type McpEmitOptions,
  type McpEmittedEvent,
  type McpEventsProfile,
  type McpEventsErrorName,
} from './events/index.js';
export {
  MCP_EVENT_STORE,
  type McpEventStore,
  type McpStoredEvent,
  type McpLoggedEvent,
  type McpEventRetention,
  type McpEventReadFrom,
  type McpEventReadOptions,
  type McpEventReadResult,
} from './protocol/event-store.interface.js';
export {
  MCP_WEBHOOK_SUBSCRIPTION_STORE,
  type McpWebhookSubscriptionStore,
  type McpWebhookSubscriptionRecord,
  type McpWebhookDeliveryState,
} from './protocol/webhook-subscription-store.interface.js';
export { MCP_WEBHOOK_DELIVERY_QUEUE, type McpWebhookDeliveryQueue, type McpWebhookDelivery } from './protocol/webhook-delivery-queue.interface.js';

// The Nest modules users already run (issue #30): rate limits, caching and request context on MCP calls.
export { mcpThrottlerOptions, type McpThrottlerOptions } from './context/mcp-throttler.options.js';
export { McpLocalResponse } from './context/local-response.js';
export type { McpAroundHandler, McpHandlerCall } from './protocol/mcp-handler-call.interface.js';
