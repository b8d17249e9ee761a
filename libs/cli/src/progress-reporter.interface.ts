/** Shows the progress of the running request, one way or another. */
export interface ProgressReporter {
  /** A new value; already filtered to strictly increase. */
  report(progress: number, total: number | undefined, message: string | undefined): void;
  /** A task's status changed (`tasks/get`); the strings are the server's, unsanitized. */
  reportStatus(taskId: string, status: string, message: string | undefined): void;
  /** Other output is about to be written (a form, the result): get out of its way. */
  suspend(): void;
  /** The request ended. */
  finish(): void;
}
