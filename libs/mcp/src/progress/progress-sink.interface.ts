/** Where emitters send validated progress (internal): the request's channel, if it asked for progress. */
export interface ProgressSink {
  /** Sends one `notifications/progress`; returns whether it went out (a token was sent and the call is live). */
  send(progress: number, total: number | undefined, message: string | undefined): boolean;
}
