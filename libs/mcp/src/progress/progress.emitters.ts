import { IllegalProgressError } from './illegal-progress.error.js';
import type { ProgressSink } from './progress-sink.interface.js';

/** A total as given to an emitter: `null` (the progress-emitter design's "unknown") is the same as leaving it out. */
type TotalArgument = number | null | undefined;

function checkTotal(total: number | undefined): void {
  if (total !== undefined && (!Number.isFinite(total) || total <= 0)) {
    throw new IllegalProgressError(`progress total must be a finite number greater than 0, got ${total}`);
  }
}

function checkMessage(message: unknown): void {
  if (message !== undefined && typeof message !== 'string') {
    throw new IllegalProgressError('progress message must be a string');
  }
}

/** Shared rules of every emitter: finite values that strictly increase. */
abstract class MonotonicEmitter {
  private last = Number.NEGATIVE_INFINITY;

  /** The total bound at creation, as sent on the wire (undefined when unknown). */
  readonly total: number | undefined;

  protected constructor(
    private readonly sink: ProgressSink,
    total: TotalArgument,
  ) {
    this.total = total ?? undefined;
    checkTotal(this.total);
  }

  /** The last value accepted, or undefined before the first. */
  get current(): number | undefined {
    return this.last === Number.NEGATIVE_INFINITY ? undefined : this.last;
  }

  protected push(value: number, message: string | undefined, wireValue = value): boolean {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new IllegalProgressError(`progress must be a finite number, got ${String(value)}`);
    }
    if (value <= this.last) {
      throw new IllegalProgressError(`progress must strictly increase: ${value} after ${this.last}`);
    }
    checkMessage(message);
    // The request's sink may refuse the value too (another emitter went higher): only then is it this emitter's last.
    const sent = this.sink.send(wireValue, this.total, message);
    this.last = value;
    return sent;
  }
}

/**
 * Progress as any finite number, strictly increasing (`ctx.doubleProgress(total?)`; a `null` total is unknown).
 *
 * @example
 * ```ts
 * const progress = ctx.doubleProgress(3.5);
 * progress.emit(1.25, 'Downloaded the index');
 * ```
 */
export class DoubleProgress extends MonotonicEmitter {
  /** @internal */
  constructor(sink: ProgressSink, total?: TotalArgument) {
    super(sink, total);
  }

  /** Reports `value`; returns whether a notification was handed to the transport. Throws `IllegalProgressError` on a bad value. */
  emit(value: number, message?: string): boolean {
    return this.push(value, message);
  }
}

/** Progress as whole numbers, strictly increasing (`ctx.longProgress(total?)`; a `null` total is unknown). */
export class LongProgress extends MonotonicEmitter {
  /** @internal */
  constructor(sink: ProgressSink, total?: TotalArgument) {
    if (total != null && !Number.isSafeInteger(total)) {
      throw new IllegalProgressError(`progress total must be a whole number, got ${total}`);
    }
    super(sink, total);
  }

  /** Reports `value` (a safe integer); returns whether a notification was handed to the transport. */
  emit(value: number | bigint, message?: string): boolean {
    const numeric = typeof value === 'bigint' ? Number(value) : value;
    if (!Number.isSafeInteger(numeric)) {
      throw new IllegalProgressError(`progress must be a whole number, got ${String(value)}`);
    }
    return this.push(numeric, message);
  }
}

/** Progress that counts steps: every `emit` adds one (`ctx.countingProgress(total?)`; a `null` total is unknown). */
export class CountingProgress extends MonotonicEmitter {
  private count = 0;

  /** @internal */
  constructor(sink: ProgressSink, total?: TotalArgument) {
    if (total != null && !Number.isSafeInteger(total)) {
      throw new IllegalProgressError(`progress total must be a whole number, got ${total}`);
    }
    super(sink, total);
  }

  /** Counts one more step; returns whether a notification was handed to the transport. */
  emit(message?: string): boolean {
    return this.advance(1, message);
  }

  /** Counts `steps` more steps at once (a positive whole number). */
  advance(steps: number, message?: string): boolean {
    if (!Number.isSafeInteger(steps) || steps <= 0) {
      throw new IllegalProgressError(`steps must be a positive whole number, got ${steps}`);
    }
    const next = this.count + steps;
    const sent = this.push(next, message);
    this.count = next;
    return sent;
  }
}

/** Progress as a fraction from 0.0 to 1.0, sent with total 1.0 (`ctx.percentProgress()`). */
export class PercentProgress extends MonotonicEmitter {
  /** @internal */
  constructor(sink: ProgressSink) {
    super(sink, 1);
  }

  /** Reports a fraction in [0, 1], strictly increasing; returns whether a notification was handed to the transport. */
  emit(fraction: number, message?: string): boolean {
    if (typeof fraction === 'number' && (fraction < 0 || fraction > 1)) {
      throw new IllegalProgressError(`progress fraction must be between 0 and 1, got ${fraction}`);
    }
    return this.push(fraction, message);
  }

  /**
   * The same as `emit`, under the name of the progress-emitter design this API follows (ADR 0021: its
   * `PercentageCompleteProgressEmitter.complete(fraction)`): reports the fraction complete, in [0, 1].
   *
   * @example
   * ```ts
   * const progress = ctx.percentProgress();
   * progress.complete(0.25, 'Copied the schema');
   * ```
   */
  complete(fraction: number, message?: string): boolean {
    return this.emit(fraction, message);
  }
}
