import type { ProgressReporter } from './progress-reporter.interface.js';

/** The values of one `notifications/progress`. */
export interface ClientProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Sits between the server's progress notifications and a reporter, and passes on only values that go beyond the
 * last one shown: after an elicitation the client retries the request, the handler runs again from the top (MRTR
 * replay) and reports its first steps a second time, under a new token. What reaches the reporter strictly
 * increases, as the ProgressEvent contract requires, and the bar never jumps back.
 */
export class ProgressRelay {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly reporter: ProgressReporter) {}

  readonly onprogress = (update: ClientProgress): void => {
    if (typeof update.progress !== 'number' || !Number.isFinite(update.progress) || update.progress <= this.last)
      return;
    this.last = update.progress;
    this.reporter.report(update.progress, update.total, update.message);
  };
}
