import type { McpTestingInputRequest } from './mcp-testing-input.interface.js';
import type { McpLogEntry, McpProgressUpdate, McpTestingNotification } from './mcp-testing-notifications.interface.js';

/** What the client recorded while a call ran, over all its rounds. */
export interface McpCallRecord {
  notifications: McpTestingNotification[];
  inputRequests: McpTestingInputRequest[];
  rounds: number;
}

/**
 * The outcome of a call (`tools/call`, `prompts/get`, `resources/read`): the final result as the server sent it,
 * and what happened on the way there, over every round of its elicitations.
 */
export class McpTestingResult<R extends object> {
  /** Every notification the server sent for the call, in order. */
  readonly notifications: readonly McpTestingNotification[];
  /** Progress notifications (`ctx.…Progress().emit`), in order. */
  readonly progress: readonly McpProgressUpdate[];
  /** Log notifications (`ctx.log`) at or above the requested `logLevel`, in order. */
  readonly logs: readonly McpLogEntry[];
  /** What the handler asked for (`ctx.elicit`), in order, over every round. */
  readonly inputRequests: readonly McpTestingInputRequest[];
  /** Requests it took: 1 plus one per `input_required` round. */
  readonly rounds: number;

  /** Results are made by `McpTestingClient`. */
  protected constructor(
    /** The final result exactly as the server sent it (with `resultType` and `_meta`). */
    readonly raw: R,
    record: McpCallRecord,
  ) {
    this.notifications = record.notifications;
    this.inputRequests = record.inputRequests;
    this.rounds = record.rounds;
    this.progress = paramsOf(record.notifications, 'notifications/progress').map(
      ({ progressToken: _token, ...update }) => update as unknown as McpProgressUpdate,
    );
    this.logs = paramsOf(record.notifications, 'notifications/message') as unknown as McpLogEntry[];
  }
}

function paramsOf(notifications: readonly McpTestingNotification[], method: string): Record<string, unknown>[] {
  return notifications
    .filter((notification) => notification.method === method)
    .map((notification) => notification.params ?? {});
}

/** The text of the text items among `items`, joined by newlines; throws when there is none (a failed expectation). */
export function joinedText(items: readonly unknown[], what: string): string {
  const texts = items.filter(
    (item): item is { text: string } => typeof (item as { text?: unknown })?.text === 'string',
  );
  if (texts.length === 0) throw new Error(`The ${what} has no text: ${JSON.stringify(items)}`);
  return texts.map((item) => item.text).join('\n');
}
