import type { JsonRpcNotification, JsonRpcRequest } from '../../protocol/json-rpc.interface.js';
import type { ChannelMessage } from '../../protocol/response-channel.js';

/** One SSE frame waiting in a response's queue, with what the queue needs to coalesce it. */
export interface SseFrame {
  /** The frame as written to the socket. */
  data: string;
  /** The call's final response: always queued, never dropped, ends the response. */
  final: boolean;
  /** A comment that only keeps the connection alive: not worth queueing. */
  keepAlive?: true;
  /** The progress token of a progress notification: a newer one replaces it at the bound. */
  progressToken?: string | number;
  /** A listen stream's change notification, keyed by method (and URI): a newer one with the same key replaces it. */
  changeKey?: string;
}

/** The one keep-alive frame: a comment line, never queued. */
export const KEEP_ALIVE_FRAME: Readonly<SseFrame> = Object.freeze({
  data: ': keep-alive\n\n',
  final: false,
  keepAlive: true,
});

/** The text of a channel message's SSE frame (a keep-alive is a comment line). */
export function sseTextOf(message: ChannelMessage): string {
  switch (message.type) {
    case 'keepalive':
      return KEEP_ALIVE_FRAME.data;
    case 'response':
      return frame(JSON.stringify(message.message));
    case 'notification':
      // Progress comes already serialized from a per-call prefix (ADR 0015).
      return frame(message.json ?? JSON.stringify(message.message));
  }
}

/**
 * A channel message's SSE frame with its coalescing keys, for a frame that has to wait. `changeKeys` turns on the
 * change-notification keys of listen streams.
 */
export function sseFrameOf(message: ChannelMessage, changeKeys: boolean): SseFrame {
  switch (message.type) {
    case 'keepalive':
      return KEEP_ALIVE_FRAME;
    case 'response':
      return { data: sseTextOf(message), final: true };
    case 'notification':
      return {
        data: sseTextOf(message),
        final: false,
        progressToken: progressTokenOf(message.message),
        changeKey: changeKeys ? changeKeyOf(message.message) : undefined,
      };
  }
}

function frame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** The key under which a listen stream coalesces a change notification: its method, and the URI of an update. */
function changeKeyOf(message: JsonRpcNotification | JsonRpcRequest): string | undefined {
  if ('id' in message) return undefined;
  switch (message.method) {
    case 'notifications/tools/list_changed':
    case 'notifications/prompts/list_changed':
    case 'notifications/resources/list_changed':
    case 'notifications/events/list_changed':
      return message.method;
    case 'notifications/resources/updated': {
      const uri = message.params?.uri;
      return typeof uri === 'string' ? `updated ${uri}` : undefined;
    }
    default:
      return undefined;
  }
}

function progressTokenOf(message: JsonRpcNotification | JsonRpcRequest): string | number | undefined {
  if (message.method !== 'notifications/progress' || 'id' in message) return undefined;
  return message.params?.progressToken as string | number | undefined;
}
