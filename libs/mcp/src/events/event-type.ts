import type { AccessControlled } from '../discovery/registry-entries.interface.js';
import type { McpEventRetention } from '../protocol/event-store.interface.js';
import type { McpMeta } from '../protocol/mcp-wire.interface.js';
import type { CompiledSchema, JsonSchemaObject } from '../schema/index.js';
import type { McpEventDeliveryMode } from './events.constants.js';
import type { McpEventAuthorizer, McpEventMatcher } from './mcp-event.decorator.js';

/** An event type as `events/list` describes it (SEP-3415, "Listing Available Events"). */
export interface McpEventTypeDescriptor {
  readonly name: string;
  readonly description?: string;
  readonly delivery: readonly McpEventDeliveryMode[];
  readonly inputSchema: JsonSchemaObject;
  readonly payloadSchema: JsonSchemaObject;
  readonly _meta?: McpMeta;
}

/** A registered event type: its descriptor, its compiled schemas, its matcher and its access summary. */
export interface McpEventTypeEntry extends AccessControlled {
  readonly name: string;
  readonly definition: McpEventTypeDescriptor;
  readonly input?: CompiledSchema;
  readonly payload?: CompiledSchema;
  readonly modes: ReadonlySet<McpEventDeliveryMode>;
  /** What the log keeps; undefined for a live-only type (`replay: false`). */
  readonly retention?: McpEventRetention;
  readonly match: McpEventMatcher;
  readonly authorize?: McpEventAuthorizer;
}
