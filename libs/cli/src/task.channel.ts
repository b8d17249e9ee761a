import type { Transport } from '@modelcontextprotocol/client';
import { CLI_PROTOCOL_VERSION } from './cli.constants.js';

/** The tasks extension of MCP 2026-07-28 (`modelcontextprotocol/ext-tasks`). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A task as `tools/call` (`CreateTaskResult`) or `tasks/get` (`DetailedTask`) shows it; everything is the server's. */
export interface WireTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string };
}

/** Who the CLI says it is in the `_meta` envelope of every request it sends itself. */
export interface RequestEnvelope {
  clientInfo: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
}

type Pending = { resolve(result: Record<string, unknown>): void; reject(error: Error): void };

/** The `_meta` key that ties an events notification to the `events/stream` request it belongs to. */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A notification of a stream request (`events/stream`): its method and params. */
export interface ChannelNotification {
  method: string;
  params: Record<string, unknown>;
}

/**
 * The requests of extensions the official client (2.4.0) cannot send or read — tasks, and events (`events/*`, whose
 * `events/stream` carries notifications of its own on its response stream). For tasks: its 2026-07-28 codec rejects a
 * `resultType: "task"`, so `tools/call` of a task tool fails there. The channel sits on the transport: it keeps the
 * task a `tools/call` created (the client still gets the response, and rejects it), and sends `tasks/get`,
 * `tasks/update` and `tasks/cancel` itself, with the same `_meta` envelope, reading their responses off the transport
 * before the client could see them. The transport adds the standard HTTP headers from the body, as for any request.
 */
export class TaskChannel {
  /** The task the last `tools/call` created, if it created one. */
  created?: WireTask;

  private readonly pending = new Map<string, Pending>();
  /** Per open stream request id: who hears its notifications. */
  private readonly streams = new Map<string, (notification: ChannelNotification) => void>();
  private sequence = 0;

  constructor(
    private readonly transport: Transport,
    private readonly envelope: RequestEnvelope,
  ) {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && !('id' in message)) {
        const params = (message.params ?? {}) as Record<string, unknown>;
        const tag = (params._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID];
        const listener = tag === undefined ? undefined : this.streams.get(String(tag));
        if (listener) return listener({ method: message.method, params });
      }
      if ('id' in message && !('method' in message)) {
        const id = String(message.id);
        const waiting = this.pending.get(id);
        if (waiting) {
          this.pending.delete(id);
          if ('error' in message)
            waiting.reject(
              new Error(
                String((message.error as { message?: unknown })?.message ?? 'the server answered with an error'),
              ),
            );
          else
            waiting.resolve(
              ((message as { result?: Record<string, unknown> }).result ?? {}) as Record<string, unknown>,
            );
          return;
        }
        const result = (message as { result?: Record<string, unknown> }).result;
        if (result?.resultType === 'task' && typeof result.taskId === 'string')
          this.created = result as unknown as WireTask;
      }
      deliver?.call(transport, message, extra);
    };
  }

  /**
   * Sends a long-lived request (`events/stream`): the notifications tagged with its id go to `onNotification` (not to
   * the client), and the promise settles with its closing result.
   */
  stream(
    method: string,
    params: Record<string, unknown>,
    onNotification: (notification: ChannelNotification) => void,
  ): Promise<Record<string, unknown>> {
    const id = `nest-mcp-cli-stream-${++this.sequence}`;
    this.streams.set(id, onNotification);
    const done = this.request(method, params, id);
    const forget = () => this.streams.delete(id);
    done.then(forget, forget);
    return done;
  }

  /** Sends `method` with the CLI's envelope and resolves with its result (rejects with the server's error message). */
  request(
    method: string,
    params: Record<string, unknown>,
    id = `nest-mcp-cli-task-${++this.sequence}`,
  ): Promise<Record<string, unknown>> {
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': CLI_PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientInfo': this.envelope.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': this.envelope.clientCapabilities,
    };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.transport
        .send({ jsonrpc: '2.0', id, method, params: { ...params, _meta } } as never)
        .catch((error: unknown) => {
          this.pending.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }
}
