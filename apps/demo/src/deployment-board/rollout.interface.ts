/** Where a rollout stands. */
export type RolloutStatus = 'running' | 'succeeded' | 'failed' | 'cancelled';

/** A rollout as the deployment board shows it. */
export interface RolloutState {
  service: string;
  version: string;
  /** The version the service ran when the rollout started. */
  fromVersion: string;
  status: RolloutStatus;
  /** Every step, in order. */
  steps: string[];
  /** Steps done. */
  completed: number;
  /** What happened, once the rollout ended badly. */
  message?: string;
}
