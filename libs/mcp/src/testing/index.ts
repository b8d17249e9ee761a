/*
 * nest-mcp/testing: test MCP handlers with Nest's TestingModule, in-process or over HTTP.
 */
export { McpTestingClient } from './mcp-testing.client.js';
export type {
  McpTestingRequestOptions,
  McpTestingCallOptions,
  McpTestingCaller,
} from './mcp-testing-options.interface.js';
export type { McpTestingMode } from './testing-transport.interface.js';
export type { McpTestingInputRequest, McpTestingAnswer, McpElicitHandler } from './mcp-testing-input.interface.js';
export type { McpProgressUpdate, McpLogEntry, McpTestingNotification } from './mcp-testing-notifications.interface.js';
export type { McpDiscoverResult, McpCompletionReference } from './mcp-testing-wire.interface.js';
export { McpTestingResult } from './mcp-testing.result.js';
export { McpToolCallResult } from './mcp-tool-call.result.js';
export { McpPromptResult } from './mcp-prompt.result.js';
export { McpResourceReadResult } from './mcp-resource-read.result.js';
export { McpListenStream, type McpListenFilter } from './mcp-listen.stream.js';
export { McpTestingError } from './mcp-testing.error.js';
export {
  McpTestingTask,
  type McpTestingTaskStatus,
  type McpTestingTaskState,
  type McpTestingTaskResultOptions,
} from './mcp-testing.task.js';
export type { McpSkillEntry, McpSkillResource, McpDirectoryEntry } from './mcp-testing-skills.interface.js';
export { McpAppViewResult } from './mcp-app-view.result.js';
// The client capabilities of a host that renders MCP Apps views, for `listTools({ capabilities })` and the like.
export { withAppsExtension } from '../apps/index.js';
export { McpEventStream } from './mcp-event.stream.js';
export {
  McpWebhookReceiver,
  type McpWebhookRequest,
  type McpWebhookAnswer,
  type McpWebhookReceiverOptions,
} from './mcp-webhook.receiver.js';
export type {
  McpEventTypeEntry,
  McpEventOccurrenceEntry,
  McpEventPollResult,
  McpEventCursorOptions,
  McpEventPollOptions,
  McpWebhookSubscribeOptions,
  McpWebhookSubscription,
} from './mcp-testing-events.interface.js';
