import { map, type Observable, type Subscription } from 'rxjs';
import type { ChannelMessage } from '../../protocol/response-channel.js';
import { boundedQueue, type QueueBounds, type QueueCounters } from './bounded-queue.operator.js';
import { sseFrameOf } from './sse-frame.util.js';
import type { SseSocketWriter } from './sse-socket.writer.js';

/**
 * Maps a call's messages to its SSE response (ADR 0002): from the first notification on, the channel's messages
 * flow through an RxJS `Subject`; each becomes an SSE frame, frames wait in the bounded queue while the socket is
 * full (ADR 0008) and otherwise leave joined per tick (ADR 0015), and the socket writer puts each chunk on the wire,
 * the final response last.
 *
 * ```
 * Subject<ChannelMessage> ─ map(sseFrameOf) ─ boundedQueue(bounds, socket) ─▶ SseSocketWriter ─▶ ServerResponse
 *                 message      SSE frame          chunk per tick                write / end
 * ```
 *
 * Returns the subscription; unsubscribing (the client went away) drops whatever still waits.
 */
export function pipeSseResponse(messages$: Observable<ChannelMessage>, socket: SseSocketWriter, bounds: QueueBounds, counters?: QueueCounters): Subscription {
  // Listen streams coalesce their change notifications while they wait; request streams coalesce progress only.
  const changeKeys = bounds.overflow === 'disconnect';
  return messages$
    .pipe(
      map((message) => sseFrameOf(message, changeKeys)),
      boundedQueue(bounds, socket, counters),
    )
    .subscribe(socket);
}
