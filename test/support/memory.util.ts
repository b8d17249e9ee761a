import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A `gc()` for memory measurements: `global.gc` is unavailable (the runner does not start Node with --expose-gc),
 * so the flag is set at run time; undefined if even that is not possible (callers then use a looser bound).
 */
export function exposeGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes the process holds (heap, C++ objects bound to JS, array buffers), after a full collection when possible. */
export function retainedBytes(gc: (() => void) | undefined): number {
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
}
