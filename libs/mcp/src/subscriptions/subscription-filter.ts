import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpClientCapabilities } from '../protocol/mcp-wire.interface.js';
import type { McpChangeEvent, McpNotifiedChange } from '../protocol/mcp-event.interface.js';
import { ABSOLUTE_URI } from '../protocol/uri.util.js';

import { TASKS_EXTENSION } from '../protocol/task.constants.js';
import { EVENTS_LIST_CHANGED } from '../protocol/events.constants.js';

/** Most task ids one listen stream follows. */
export const MAX_TASK_SUBSCRIPTIONS = 100;
/** Most resource URIs one listener follows: a 2026 listen filter, and a 2025-11-25 session's `resources/subscribe` set. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 1000;

/** What a listen stream asked for, narrowed to what this server honours. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** The events extension's catalog (SEP-3415, "Dynamic event types"): honoured when the server declared `listChanged`. */
  eventsListChanged?: boolean;
  resourceSubscriptions?: string[];
  /**
   * Tasks whose `notifications/tasks` the stream gets (ext-tasks 2026-07-28: tasks, "Task Status Notifications"). As
   * parsed: the ids asked for; the listen service keeps only the caller's own before the acknowledgment.
   */
  taskIds?: string[];
}

/** The server features a filter can be honoured against. */
export interface ListenFeatures {
  tools: boolean;
  prompts: boolean;
  resources: boolean;
  /** Whether the events extension is advertised with `listChanged: true`. */
  events: boolean;
}

/**
 * Reads `params.notifications` of `subscriptions/listen` and keeps the subset the server honours (spec 2026-07-28:
 * basic/patterns/subscriptions, "Notification Filter" and "Acknowledgment"): list changes only for features it has
 * (the events catalog only while the events extension declares `listChanged`), resource subscriptions only with
 * resources. Malformed filters are `-32602`.
 */
export function parseSubscriptionFilter(
  params: JsonObject,
  features: ListenFeatures,
  capabilities: McpClientCapabilities,
): SubscriptionFilter {
  // Absent means no filter; anything else (null included) must be an object.
  const raw = params.notifications === undefined ? {} : params.notifications;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw McpError.invalidParams('Invalid params: notifications must be an object');
  }
  const requested = raw as JsonObject;
  for (const flag of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged', 'eventsListChanged'] as const) {
    if (requested[flag] !== undefined && typeof requested[flag] !== 'boolean') {
      throw McpError.invalidParams(`Invalid params: notifications.${flag} must be a boolean`);
    }
  }
  if (requested.taskIds !== undefined) {
    const extensions = capabilities.extensions as Record<string, unknown> | undefined;
    if (!extensions || !(TASKS_EXTENSION in extensions)) {
      throw McpError.missingCapability('Listening for tasks needs the tasks extension capability', {
        extensions: { [TASKS_EXTENSION]: {} },
      });
    }
    const ids = requested.taskIds;
    if (
      !Array.isArray(ids) ||
      ids.length > MAX_TASK_SUBSCRIPTIONS ||
      !ids.every((id) => typeof id === 'string' && id.length > 0)
    ) {
      throw McpError.invalidParams(
        `Invalid params: notifications.taskIds must be at most ${MAX_TASK_SUBSCRIPTIONS} task ids`,
      );
    }
  }
  const filter: SubscriptionFilter = {};
  if (requested.toolsListChanged === true && features.tools) filter.toolsListChanged = true;
  if (requested.promptsListChanged === true && features.prompts) filter.promptsListChanged = true;
  if (requested.resourcesListChanged === true && features.resources) filter.resourcesListChanged = true;
  if (requested.eventsListChanged === true && features.events) filter.eventsListChanged = true;
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (
      !Array.isArray(uris) ||
      uris.length > MAX_RESOURCE_SUBSCRIPTIONS ||
      !uris.every((uri) => typeof uri === 'string' && ABSOLUTE_URI.test(uri))
    ) {
      throw McpError.invalidParams(
        `Invalid params: notifications.resourceSubscriptions must be at most ${MAX_RESOURCE_SUBSCRIPTIONS} absolute URIs`,
      );
    }
    if (features.resources && uris.length > 0) filter.resourceSubscriptions = [...new Set(uris as string[])];
  }
  if (requested.taskIds !== undefined) filter.taskIds = [...new Set(requested.taskIds as string[])];
  return filter;
}

/** The notification method of each change event, on either wire. */
export const CHANGE_NOTIFICATIONS: Readonly<Record<McpNotifiedChange['type'], string>> = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
  eventsListChanged: EVENTS_LIST_CHANGED,
  resourceUpdated: 'notifications/resources/updated',
};

/** The list-change flags of a filter, in the order a resync tells them. */
const LIST_FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged', 'eventsListChanged'] as const;

/** The notification method of an event, if the filter wants it (never for `resync`: see {@link resyncNotifications}). */
export function notificationFor(filter: SubscriptionFilter, event: McpChangeEvent): string | undefined {
  if (event.type === 'resync') return undefined;
  const wanted =
    event.type === 'resourceUpdated'
      ? filter.resourceSubscriptions?.some((uri) => coversUri(uri, event.uri)) === true
      : filter[event.type] === true;
  return wanted ? CHANGE_NOTIFICATIONS[event.type] : undefined;
}

/**
 * What a `resync` means for a filter: a list change for every list it opted into and an update of every URI it
 * subscribed to (tasks are told by the listen service, which reads their current state).
 */
export function resyncNotifications(filter: SubscriptionFilter): Array<{ method: string; uri?: string }> {
  const notifications: Array<{ method: string; uri?: string }> = [];
  for (const flag of LIST_FLAGS) if (filter[flag] === true) notifications.push({ method: CHANGE_NOTIFICATIONS[flag] });
  for (const uri of filter.resourceSubscriptions ?? [])
    notifications.push({ method: CHANGE_NOTIFICATIONS.resourceUpdated, uri });
  return notifications;
}

/** A subscription to a URI also covers its sub-resources (`file:///dir` covers `file:///dir/a.txt`). */
export function coversUri(subscribed: string, updated: string): boolean {
  if (subscribed === updated) return true;
  const prefix = subscribed.endsWith('/') ? subscribed : `${subscribed}/`;
  return updated.startsWith(prefix);
}
