import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';

/** Provider token: how long each step of an incident investigation takes, in milliseconds (IncidentsModule: 2,000). */
export const INCIDENT_STEP_MS = Symbol('INCIDENT_STEP_MS');

/** The steps of an incident report, in order; the question to the user comes after the second. */
export const INCIDENT_STEPS = [
  'Collecting the alerts',
  'Reading the recent logs',
  'Building the timeline',
  'Estimating the customer impact',
  'Writing the summary',
] as const;

/** One step of an incident report. */
export type IncidentStep = (typeof INCIDENT_STEPS)[number];

/** How many steps run before the report asks the user its question. */
export const STEPS_BEFORE_QUESTION = 2;

/**
 * Runs the (simulated) steps of an investigation: five steps of two seconds, about ten seconds in all. Tests make
 * them instant with `overrideProvider(INCIDENT_STEP_MS).useValue(1)`.
 *
 * A task's handler is replayed from the top once the user answered, so the steps before the question are remembered
 * per task (`ctx.taskId`): the replay skips them instead of doing the work twice.
 */
@Injectable()
export class IncidentInvestigation {
  private readonly done = new Map<string, number>();

  constructor(@Inject(INCIDENT_STEP_MS) private readonly stepMs: number) {}

  /** Runs `step` of the task `taskId`, unless that task already ran it; rejects when `signal` aborts. */
  async run(taskId: string, index: number, signal: AbortSignal): Promise<void> {
    if ((this.done.get(taskId) ?? 0) > index) return;
    await delay(this.stepMs, undefined, { signal });
    this.done.set(taskId, index + 1);
  }

  /** Forgets a finished (or cancelled) task. */
  forget(taskId: string): void {
    this.done.delete(taskId);
  }
}
