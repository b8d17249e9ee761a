/** Exit codes of `nest-mcp`. */
export const CliExitCode = {
  /** The command worked. */
  Ok: 0,
  /** The server answered with an error, the tool reported one, or the target could not be reached. */
  Failed: 1,
  /** The command line is wrong. */
  Usage: 2,
  /** Interrupted (Ctrl+C). */
  Interrupted: 130,
} as const;

/** A failure the CLI reports as one line on stderr before it exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = CliExitCode.Failed,
  ) {
    super(message);
    this.name = 'CliError';
  }

  /** A mistake on the command line (exit code 2). */
  static usage(message: string): CliError {
    return new CliError(message, CliExitCode.Usage);
  }
}
