import { Injectable } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import type { Release } from './release.interface.js';

/** The steps of every rollout, in order. */
export const RELEASE_STEPS = [
  'Build the image',
  'Push it to the registry',
  'Run the database migrations',
  'Deploy the canary',
  'Shift the traffic',
  'Retire the old replicas',
] as const;

/** One step of a rollout. */
export type ReleaseStep = (typeof RELEASE_STEPS)[number];

/** How long each simulated step takes, in milliseconds. */
const STEP_MS = 400;

/**
 * Runs the steps of a rollout. This one only waits, as a stand-in for the CI/CD system a real console would drive;
 * tests replace it with `overrideProvider(ReleasePipeline)` to make steps instant, fail or hang.
 */
@Injectable()
export class ReleasePipeline {
  readonly steps: readonly ReleaseStep[] = RELEASE_STEPS;

  /** Runs one step; rejects when it fails, or when `signal` aborts (the rollout is cancelled). */
  async run(_step: ReleaseStep, _release: Release, signal: AbortSignal): Promise<void> {
    await delay(STEP_MS, undefined, { signal });
  }
}
