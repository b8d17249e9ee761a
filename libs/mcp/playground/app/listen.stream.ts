import type { McpClient } from '../protocol/mcp.client.js';
import type { JsonRpcNotification } from '../protocol/wire.types.js';
import { Store } from './store.js';

/** What a listen stream asks for (spec 2026-07-28: basic/patterns/subscriptions, the `notifications` filter). */
export interface ListenFilter {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  resourceSubscriptions: string[];
  taskIds: string[];
}

/** A stream and what arrived on it. */
export interface ListenState {
  phase: 'idle' | 'open' | 'closed' | 'failed';
  heard: Array<{ at: number; notification: JsonRpcNotification }>;
  problem?: string;
}

/** One `subscriptions/listen` stream at a time, opened and closed from the page; everything heard is kept. */
export class ListenStream {
  readonly state = new Store<ListenState>({ phase: 'idle', heard: [] });
  private abort?: AbortController;

  constructor(private readonly client: McpClient) {}

  open(filter: ListenFilter): void {
    this.close();
    const abort = (this.abort = new AbortController());
    const notifications: Record<string, unknown> = {
      ...(filter.toolsListChanged && { toolsListChanged: true }),
      ...(filter.promptsListChanged && { promptsListChanged: true }),
      ...(filter.resourcesListChanged && { resourcesListChanged: true }),
      ...(filter.resourceSubscriptions.length > 0 && { resourceSubscriptions: filter.resourceSubscriptions }),
      ...(filter.taskIds.length > 0 && { taskIds: filter.taskIds }),
    };
    this.state.update((state) => ({ ...state, phase: 'open', problem: undefined }));
    const heard = (notification: JsonRpcNotification) =>
      this.state.update((state) => ({
        ...state,
        heard: [{ at: Date.now(), notification }, ...state.heard].slice(0, 200),
      }));
    this.client
      .request('subscriptions/listen', { notifications }, { signal: abort.signal, onNotification: heard })
      .then(() => this.state.update((state) => ({ ...state, phase: 'closed', problem: 'The server ended the stream' })))
      .catch((error: Error) => {
        if (abort.signal.aborted) this.state.update((state) => ({ ...state, phase: 'closed' }));
        else this.state.update((state) => ({ ...state, phase: 'failed', problem: error.message }));
      });
  }

  close(): void {
    this.abort?.abort();
    this.abort = undefined;
  }
}
