import type { JsonValue } from '../protocol/json-rpc.interface.js';
import type { McpTaskBinding } from '../protocol/mcp-request-scope.interface.js';

/**
 * The binding of a task round as the task worker makes it: the handler state the round starts with (from the task
 * record), and where the round's state goes when the handler asks for input (into the record, by the round). Task
 * rounds carry no `requestState`, so this is how `ctx.requestState` survives between them. It is also where
 * `ctx.status(message)` writes the task's status message.
 */
export interface McpTaskRoundState extends McpTaskBinding {
  /** What the last round left (`McpTaskRecord.handlerState`); undefined in the first round. */
  readonly handlerState?: JsonValue;
  /** Called once when the round ends asking for input, with the handler's state at that moment. */
  keepHandlerState(state: JsonValue | undefined): void;
  /** Sets the task's `statusMessage` while it is `working` (`ctx.status(message)`); written in order with the rest. */
  setStatusMessage(message: string): void;
}

/** The round state of a task binding, when the binding carries one (a worker's round); else undefined. */
export function taskRoundState(binding: McpTaskBinding | undefined): McpTaskRoundState | undefined {
  return typeof (binding as Partial<McpTaskRoundState> | undefined)?.keepHandlerState === 'function'
    ? (binding as McpTaskRoundState)
    : undefined;
}
