/** The event type the `events` workload emits (all three modes, a replay log large enough for every round). */
export const BENCH_EVENT = 'bench.tick';
/** The resource the `events` workload's listen baseline publishes updates under: `<BENCH_TICKS_URI>/<seq>/<sentAt>`. */
export const BENCH_TICKS_URI = 'bench://ticks';
/** The principal of every caller of the events bench server (webhook subscriptions need one). */
export const BENCH_PRINCIPAL = 'bench';
