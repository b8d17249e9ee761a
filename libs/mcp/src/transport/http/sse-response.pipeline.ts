import type { Observable, Subscription } from 'rxjs';
import type { ChannelMessage } from '../../protocol/response-channel.js';
import type { SseSocketWriter } from './sse-socket.writer.js';
import { type QueueBounds, type QueueCounters, sseQueue } from './sse-queue.operator.js';

/**
 * Maps a call's messages to its SSE response (ADR 0002). From the first notification on, the channel's messages
 * flow through an RxJS `Subject`; `sseQueue` turns each into an SSE frame, joins the frames of a tick into one chunk
 * (ADR 0015) and holds them in a bounded queue while the socket is full (ADR 0008); the socket writer puts each
 * chunk on the wire, the final response last.
 *
 * ```
 * Subject<ChannelMessage> ── sseQueue(bounds, socket) ──▶ SseSocketWriter ──▶ ServerResponse
 *      notifications,          frames, per-tick chunks,       write / end,
 *      final response last     bounded while the socket       'drain' back to
 *                              is full                        the queue
 * ```
 *
 * Returns the subscription; unsubscribing (the client went away) drops whatever still waits.
 */
export function pipeSseResponse(
  messages$: Observable<ChannelMessage>,
  socket: SseSocketWriter,
  bounds: QueueBounds,
  counters?: QueueCounters,
): Subscription {
  return messages$.pipe(sseQueue(bounds, socket, counters)).subscribe(socket);
}
