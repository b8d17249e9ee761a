/**
 * The part of a writable stream the stdio transport writes protocol lines to. `process.stdout` fits; so does the
 * protected handle `redirectStdout()` returns once `process.stdout.write` itself points at stderr.
 */
export interface StdioOutput {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
