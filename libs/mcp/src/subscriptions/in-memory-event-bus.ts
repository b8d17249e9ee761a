import type { McpChangeEvent } from '../protocol/mcp-event.interface.js';
import type { McpEventBus } from '../protocol/mcp-event-bus.interface.js';

/** The default event bus: events reach the listen streams of this process only. */
export class InMemoryEventBus implements McpEventBus {
  private readonly listeners = new Set<(event: McpChangeEvent) => void>();

  publish(event: McpChangeEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: (event: McpChangeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
