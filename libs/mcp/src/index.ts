/*
 * nest-mcp: what an application writes to serve MCP — the module and its options, the decorators of handlers, the
 * contexts handlers receive, the builders of input requests and results, the errors, and the hooks an application
 * implements. Grouped by concept; each name's TSDoc is on its declaration.
 *
 * What code built on nest-mcp needs (a storage backend such as nest-mcp-redis, the CLI, a client or tool speaking
 * the protocol) and the shapes an application meets only inline or inferred are in `nest-mcp/backend`
 * (backend/index.ts; ADR 0026). Everything else is internal and may change without notice.
 */

// The module and its options: `McpModule.forRoot(options, extras)`, and the options of each feature.
export { McpModule } from './mcp.module.js';
export type {
  McpModuleOptions,
  McpModuleExtras,
  McpAuthOptions,
  McpTasksOptions,
  McpTelemetryOptions,
  McpSkillsOptions,
  McpEventsOptions,
  McpLoggingOptions,
  McpPlaygroundOptions,
  McpRequestStateOptions,
  McpStreamingOptions,
  McpCacheHintOptions,
} from './config/mcp-options.interface.js';

// Serving over stdio instead of (or beside) HTTP.
export { McpStdio } from './transport/stdio/mcp-stdio.bootstrap.js';
export type { McpStdioOptions, McpStdioServer } from './transport/stdio/mcp-stdio-options.interface.js';
export { McpStderrLogger } from './transport/stdio/stderr.logger.js';

// Declaring handlers: the decorators on provider (or controller) methods and their options.
export { McpTool, type McpToolOptions, type McpBeforeTaskHook } from './decorators/mcp-tool.decorator.js';
export { McpPrompt, type McpPromptOptions } from './decorators/mcp-prompt.decorator.js';
export { McpResource, type McpResourceOptions } from './decorators/mcp-resource.decorator.js';
export { McpResourceTemplate, type McpResourceTemplateOptions } from './decorators/mcp-resource-template.decorator.js';
export { McpAppView } from './decorators/mcp-app-view.decorator.js';
export type { McpAppViewOptions } from './decorators/mcp-app-options.interface.js';
export { McpSkill, type McpSkillOptions, type McpSkillFiles } from './skills/index.js';
export {
  McpEvent,
  type McpEventOptions,
  type McpEventMatcher,
  type McpEventMatchContext,
  type McpEventAuthorizer,
} from './events/index.js';
export { McpScopes } from './decorators/mcp-scopes.decorator.js';

// A handler's parameters: its arguments, its context, the HTTP request, and who is calling.
export { McpArgs, McpCtx, McpHttpRequest, McpPrincipal, McpToken } from './decorators/mcp-params.decorator.js';
export type { McpAccessToken } from './protocol/access-token.interface.js';
export type { McpCaller } from './protocol/mcp-caller.interface.js';

// Completion of prompt arguments and resource-template variables.
export type {
  McpCompletionProvider,
  McpCompletionContext,
  McpCompletionReturn,
} from './decorators/completion-provider.interface.js';

// The contexts a handler receives, and the MCP call seen from guards, interceptors, pipes and filters.
export { MrtrContext } from './context/mrtr.context.js';
export { McpToolContext } from './context/mcp-tool.context.js';
export { McpPromptContext } from './context/mcp-prompt.context.js';
export { McpResourceContext } from './context/mcp-resource.context.js';
export { McpExecutionContext, MCP_CONTEXT_TYPE } from './context/mcp-execution-context.js';
export { getMcpInvocationContext } from './context/mcp-invocation-context.js';
export { McpLocalResponse } from './context/local-response.js';

// Progress: the typed emitters a context makes (`ctx.doubleProgress()`…), under our names and the design's (ADR 0021).
export {
  DoubleProgress,
  LongProgress,
  CountingProgress,
  PercentProgress,
  IllegalProgressError,
  type McpProgressSource,
  type DoubleProgressEmitter,
  type LongProgressEmitter,
  type CountingProgressEmitter,
  type PercentageCompleteProgressEmitter,
  type PercentProgressEmitter,
} from './progress/index.js';

// Asking the client for input (multi round-trip requests): the request builders, forms, and the answers.
export { McpInput, canElicit } from './mrtr/input-request.builders.js';
export { McpForm, FormSchema, type InferForm } from './mrtr/form-schema.builder.js';
export type { McpInputRequest } from './mrtr/input-request.interface.js';
export type { McpInputKind } from './mrtr/input-kind.js';
export type { McpElicitOptions } from './mrtr/elicit-options.interface.js';
export type { FormAnswer, UrlAnswer, SamplingAnswer, RootsAnswer } from './mrtr/input-answers.interface.js';
export { isInputRequired } from './mrtr/input-required.signal.js';

// What a handler returns: content builders and the result shapes of the three kinds of handler.
export { McpContent } from './server/mcp-content.js';
export type {
  McpCallToolResult,
  McpContentBlock,
  McpGetPromptResult,
  McpPromptMessage,
  McpReadResourceResult,
  McpResourceContents,
} from './protocol/mcp-wire.interface.js';

// Errors: those a handler throws, and those bootstrap raises for a wrong declaration.
export { McpError } from './protocol/mcp.error.js';
export { McpErrorCode } from './protocol/error-codes.enum.js';
export { McpToolError } from './server/mcp-tool.error.js';
export { McpAuthError } from './protocol/access-token.interface.js';
export { McpDefinitionError } from './discovery/mcp-definition.error.js';
export { SchemaDefinitionError } from './schema/index.js';
export { McpSkillDefinitionError } from './skills/index.js';
export { McpEventDefinitionError } from './events/index.js';

// At run time: handlers added and removed, change notifications published, events emitted, views from files.
export {
  McpRegistry,
  type McpRuntimeHandler,
  type McpRuntimeHandlerOptions,
  type McpRuntimeHandlerRef,
} from './discovery/mcp.registry.js';
// Several servers in one application (docs/servers.md): each server's registry and publisher, by its name.
export {
  getMcpPublisherToken,
  getMcpRegistryToken,
  InjectMcpPublisher,
  InjectMcpRegistry,
} from './config/server-tokens.js';
export { McpPublisher, type McpPublishOptions } from './subscriptions/mcp.publisher.js';
export { McpEvents, McpEventTypes, type McpEmitOptions } from './events/index.js';
export { McpAppViews, declaresApps } from './apps/index.js';

// Hooks an application implements (module options): visibility, delivery of change events, around every handler.
export type { McpVisibilityHook, McpHandlerSummary } from './protocol/mcp-caller.interface.js';
export type { McpDeliveryAuthorizer, McpListener } from './protocol/delivery-authorizer.interface.js';
export type { McpAroundHandler, McpHandlerCall } from './protocol/mcp-handler-call.interface.js';

// The Nest modules an application already runs, on MCP calls (docs/nest-ecosystem.md).
export { mcpThrottlerOptions } from './context/mcp-throttler.options.js';
