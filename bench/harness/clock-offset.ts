import { preciseNow } from '../servers/shared/precise-clock.js';
import type { ServerProcess } from './server-process.js';

/** Pings per measurement; the one with the shortest round trip gives the offset. */
const SAMPLES = 25;

/**
 * How far a child process's `preciseNow` is ahead of the harness's, in ms (NTP's method over IPC: the child's
 * reading against the midpoint of the round trip with the shortest round trip). Every process takes its time origin
 * from the wall clock when it starts, so two processes may disagree by however much the wall clock was adjusted in
 * between; a child timestamp `t` is `t - offset` on the harness's clock, to within half that round trip.
 */
export async function measureClockOffset(peer: ServerProcess): Promise<{ offsetMs: number; uncertaintyMs: number }> {
  let best = { offsetMs: 0, uncertaintyMs: Number.POSITIVE_INFINITY };
  for (let sample = 0; sample < SAMPLES; sample++) {
    const sent = preciseNow();
    const remote = await peer.request<number>('clock');
    const received = preciseNow();
    const halfTrip = (received - sent) / 2;
    if (halfTrip < best.uncertaintyMs) best = { offsetMs: remote - (sent + halfTrip), uncertaintyMs: halfTrip };
  }
  return best;
}
