import { Injectable } from '@nestjs/common';
import type { RolloutState, RolloutStatus } from './rollout.interface.js';

/** One rollout in progress or done: its state, and the signal its pipeline steps run under. */
export class Rollout {
  private readonly cancellation = new AbortController();
  private readonly current: RolloutState;
  /** Aborts when the `deploy_release` call is cancelled, or when someone cancels the rollout from the board. */
  readonly signal: AbortSignal;

  constructor(
    service: string,
    version: string,
    fromVersion: string,
    steps: readonly string[],
    callSignal: AbortSignal,
  ) {
    this.current = { service, version, fromVersion, status: 'running', steps: [...steps], completed: 0 };
    this.signal = AbortSignal.any([callSignal, this.cancellation.signal]);
  }

  /** A copy of where it stands. */
  get state(): RolloutState {
    return { ...this.current, steps: [...this.current.steps] };
  }

  /** One more step done. */
  advance(): void {
    this.current.completed++;
  }

  /** Ends it (once: a later call changes nothing). */
  end(status: Exclude<RolloutStatus, 'running'>, message?: string): void {
    if (this.current.status !== 'running') return;
    this.current.status = status;
    if (message !== undefined) this.current.message = message;
  }

  /** Stops it where it is; `false` if it already ended. */
  cancel(): boolean {
    if (this.current.status !== 'running') return false;
    this.cancellation.abort(new Error('cancelled from the deployment board'));
    return true;
  }
}

/**
 * The latest rollout of each service, for the deployment board: `deploy_release` starts and ends them, the board's
 * app-only tools read and cancel them. One entry per service, replaced by the next rollout.
 */
@Injectable()
export class RolloutTracker {
  private readonly latest = new Map<string, Rollout>();

  /** Records a rollout that starts now; its steps must run under `rollout.signal`. */
  start(
    service: string,
    version: string,
    fromVersion: string,
    steps: readonly string[],
    callSignal: AbortSignal,
  ): Rollout {
    const rollout = new Rollout(service, version, fromVersion, steps, callSignal);
    this.latest.set(service, rollout);
    return rollout;
  }

  /** The latest rollout of `service`, if any. */
  find(service: string): Rollout | undefined {
    return this.latest.get(service);
  }
}
