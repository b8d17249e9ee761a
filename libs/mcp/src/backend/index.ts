/*
 * nest-mcp/backend: what code built on nest-mcp needs, rather than an application using it (ADR 0026):
 *
 * - a storage or delivery backend (nest-mcp-redis is one): the contracts nest-mcp plugs in, their injection tokens,
 *   the records they keep, and the in-memory defaults to compare with or wrap;
 * - a token verifier of your own, or the built-in ones to compose;
 * - the CLI and tools that read a server's output: the NDJSON `ProgressEvent` codec, trace ids, stdout protection;
 * - clients and tools that speak the protocol: versions, `_meta` keys and headers, extension identifiers, the wire
 *   types, URI templates;
 * - the shapes the `nest-mcp` entry's signatures mention one level down (a field of an option, an answer's part),
 *   which an application writes inline or gets inferred, and may import from here when it wants to name one.
 *
 * Each name's TSDoc is on its declaration. Everything not exported here or from `nest-mcp` is internal.
 */

// Tasks: the store and runner contracts, the task record, the worker a runner drives, the in-memory defaults.
export { MCP_TASK_STORE, type McpTaskStore } from '../protocol/task-store.interface.js';
export {
  MCP_TASK_RUNNER,
  type McpTaskRunner,
  type McpTaskExecutor,
  type McpTaskQueueDepth,
} from '../protocol/task-runner.interface.js';
export {
  isTerminalTaskStatus,
  type McpTaskRecord,
  type McpTaskStatus,
  type McpTaskInputRequest,
  type McpTaskError,
} from '../protocol/task-record.interface.js';
export { InMemoryTaskStore, InMemoryTaskRunner, McpTaskWorker, type InMemoryTaskStoreLimits } from '../tasks/index.js';

// Single-use `requestState`: the store of used states, and the in-memory default.
export type { McpRequestStateStore } from '../protocol/request-state-store.interface.js';
export {
  InMemoryRequestStateStore,
  type InMemoryRequestStateStoreOptions,
} from '../mrtr/in-memory-request-state.store.js';

// Runtime changes of the lists shared by replicas (ADR 0027): the registry state contract and its records.
export {
  MCP_REGISTRY_STATE,
  type McpRegistryRecord,
  type McpRegistrySnapshot,
  type McpRegistryState,
  type McpRuntimeEntryType,
} from '../protocol/registry-state.interface.js';

// Change events between replicas: the event bus, what it carries, the in-process default.
export { MCP_EVENT_BUS, type McpEventBus } from '../protocol/mcp-event-bus.interface.js';
export type { McpChangeEvent, McpEventAudience } from '../protocol/mcp-event.interface.js';
export { InMemoryEventBus } from '../subscriptions/in-memory-event-bus.js';

// Events (SEP-3415): the replay log, webhook subscriptions and deliveries, and their in-memory defaults.
export {
  MCP_EVENT_STORE,
  type McpEventStore,
  type McpStoredEvent,
  type McpLoggedEvent,
  type McpEventRetention,
  type McpEventReadFrom,
  type McpEventReadOptions,
  type McpEventReadResult,
} from '../protocol/event-store.interface.js';
export {
  MCP_WEBHOOK_SUBSCRIPTION_STORE,
  type McpWebhookSubscriptionStore,
  type McpWebhookSubscriptionRecord,
  type McpWebhookDeliveryState,
} from '../protocol/webhook-subscription-store.interface.js';
export {
  MCP_WEBHOOK_DELIVERY_QUEUE,
  type McpWebhookDeliveryQueue,
  type McpWebhookDelivery,
} from '../protocol/webhook-delivery-queue.interface.js';
export { InMemoryEventStore, InMemoryWebhookSubscriptionStore, InMemoryWebhookDeliveryQueue } from '../events/index.js';
// The trace context an occurrence (or a task) keeps of the span it came from, and its check when read back.
export type { McpTraceContext } from '../protocol/trace-context.interface.js';
export { parseTraceContext } from '../protocol/trace-context.parser.js';

// Access tokens: the verifier contract and its refusal, the built-in JWT and introspection verifiers.
export { McpTokenError, type McpTokenVerifier } from '../protocol/access-token.interface.js';
export {
  JwtTokenVerifier,
  type JwtTokenVerifierOptions,
  type JwtTokenVerifierSettings,
} from '../auth/jwt-token.verifier.js';
export {
  IntrospectionTokenVerifier,
  type IntrospectionTokenVerifierOptions,
  type IntrospectionTokenVerifierSettings,
} from '../auth/introspection-token.verifier.js';

// Reading a server's output: the NDJSON `ProgressEvent` lines (`progress: 'stderr'`, the CLI), W3C trace ids, stdout.
export {
  createProgressEvent,
  formatProgressEvent,
  parseProgressLine,
  ProgressEventWriter,
  type ProgressEvent,
  type ProgressReport,
  type ProgressLine,
} from '../progress/index.js';
export { parseTraceparent, type TraceIds } from '../protocol/traceparent.parser.js';
export { redirectStdout, type StdoutRedirection } from '../transport/stdio/stdout.guard.js';

// The protocol: revisions, `_meta` keys and headers, extension identifiers, URIs and URI templates, log levels.
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/protocol-version.constants.js';
export { MetaKeys, McpHeaders } from '../protocol/meta-keys.constants.js';
export { TASKS_EXTENSION } from '../protocol/task.constants.js';
export { SKILLS_EXTENSION } from '../skills/index.js';
export {
  MCP_APPS_EXTENSION,
  MCP_APP_MIME_TYPE,
  MCP_APP_RESOURCE_URI_META_KEY,
  DEFAULT_APP_VIEW_TTL_MS,
  withAppsExtension,
} from '../apps/index.js';
export {
  EVENTS_EXTENSION,
  EVENTS_PROFILES,
  EVENT_DELIVERY_MODES,
  type McpEventDeliveryMode,
  type McpEventsProfile,
  type McpEventsErrorName,
} from '../events/index.js';
export { UriTemplate, UriTemplateSyntaxError, type UriTemplateVariables } from '../protocol/uri-template.js';
export { isResourceUri, MAX_URI_LENGTH } from '../protocol/uri.util.js';
export { MCP_LOG_LEVELS, type McpLogLevel } from '../protocol/mcp-wire.interface.js';

// Wire types: definitions as listed, content and resource contents, capabilities, cache hints.
export type {
  McpImplementation,
  McpClientCapabilities,
  McpToolDefinition,
  McpToolAnnotations,
  McpPromptDefinition,
  McpPromptArgument,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpCompletionResult,
  McpTextContent,
  McpImageContent,
  McpAudioContent,
  McpResourceLink,
  McpEmbeddedResource,
  McpTextResourceContents,
  McpBlobResourceContents,
  McpAnnotations,
  McpIcon,
  McpMeta,
  McpCacheHints,
  McpCacheScope,
} from '../protocol/mcp-wire.interface.js';
export type { SamplingRequestParams } from '../mrtr/input-answers.interface.js';

// Shapes one level down in the options of `nest-mcp`: module options, decorator options, hook parameters.
export type {
  McpJwtOptions,
  McpIntrospectionOptions,
  McpSkillRoot,
  McpWebhookOptions,
} from '../config/mcp-options.interface.js';
export type { McpToolTaskSupport } from '../decorators/mcp-tool.decorator.js';
export type { McpPromptArgumentOptions } from '../decorators/mcp-prompt.decorator.js';
export type {
  McpToolAppOptions,
  McpAppVisibility,
  McpAppCsp,
  McpAppPermissions,
  McpCompanionPromptOptions,
  McpCompanionPromptMessages,
} from '../decorators/mcp-app-options.interface.js';
export type {
  McpEventReplayOptions,
  McpEmittedEvent,
  McpEventTypeAccess,
  McpEventTypeDescriptor,
} from '../events/index.js';
export type { McpHandlerKind } from '../protocol/mcp-caller.interface.js';
export type { SchemaInput, JsonSchemaObject } from '../schema/index.js';
export type { McpThrottlerOptions } from '../context/mcp-throttler.options.js';

// Shapes of asking for input: form fields, titled choices, the elicitor and `elicitAll`'s answers, the signal.
export type { FormField, TitledOption } from '../mrtr/form-schema.builder.js';
export type { McpElicitor, McpAnswers } from '../mrtr/mcp-elicitor.interface.js';
export { InputRequiredSignal } from '../mrtr/input-required.signal.js';
