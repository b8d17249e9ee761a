/**
 * The resource the scale-out workloads publish updates of. Listeners subscribe to `<BENCH_ITEMS_URI>/<group>`; the
 * bench publishes `<BENCH_ITEMS_URI>/<group>/<sequence>`, which that subscription covers, so each listener can tell
 * which update arrived from the URI alone.
 */
export const BENCH_ITEMS_URI = 'bench://items';
