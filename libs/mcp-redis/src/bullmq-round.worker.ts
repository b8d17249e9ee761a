import { type Job, Worker } from 'bullmq';

/**
 * A BullMQ worker that can stop taking jobs at once, and knows which jobs it still handles: from the moment it starts
 * taking one (the move to `active` in Redis) until BullMQ finished with it (the processor ran, and the job was
 * completed, failed or moved back in Redis). A graceful shutdown stops it taking jobs, waits for those, then closes it
 * with `close(true)`, which waits for nothing.
 * @internal
 */
export class RoundWorker<T> extends Worker<T> {
  private readonly handling = new Set<Promise<unknown>>();
  /** Per fetch token: ends the hold on a job that was taken but whose processing has not started yet. */
  private readonly taken = new Map<string, () => void>();
  private refusing = false;

  /** Whether it handles a job right now. */
  get busy(): boolean {
    return this.handling.size > 0;
  }

  /**
   * Takes no job any more, whatever asks for one: a fetch already in flight included, which `pause()` lets finish and
   * which would otherwise take a job that a closing worker could not hand back.
   */
  refuseJobs(): void {
    this.refusing = true;
  }

  /** Resolves once no job is handled any more. */
  async idle(): Promise<void> {
    while (this.handling.size > 0) await Promise.allSettled([...this.handling]);
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job<T>> {
    // BullMQ's own answer when the queue has no job for it.
    if (this.refusing) return undefined as unknown as Job<T>;
    const release = this.hold();
    try {
      const job = await super.moveToActive(token, name);
      if (job) this.taken.set(token, release);
      else release();
      return job;
    } catch (error) {
      release();
      throw error;
    }
  }

  override processJob(
    job: Job<T>,
    token: string,
    fetchNextCallback?: () => boolean,
  ): ReturnType<Worker<T>['processJob']> {
    const handled = super.processJob(job, token, fetchNextCallback);
    this.track(handled);
    this.taken.get(token)?.();
    this.taken.delete(token);
    return handled;
  }

  private hold(): () => void {
    let release!: () => void;
    this.track(new Promise<void>((resolve) => (release = resolve)));
    return release;
  }

  private track(promise: Promise<unknown>): void {
    this.handling.add(promise);
    const done = () => this.handling.delete(promise);
    promise.then(done, done);
  }
}
