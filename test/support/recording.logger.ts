import type { LoggerService } from '@nestjs/common';

/** A Nest logger that keeps its warnings, errors and debug lines (and drops the rest), for tests that assert what was logged. */
export class RecordingLogger implements LoggerService {
  readonly warnings: string[] = [];
  /** Each error line with its context and stack, joined by spaces. */
  readonly errors: string[] = [];
  readonly debugs: string[] = [];
  log(): void {}
  error(message: unknown, ...rest: unknown[]): void {
    this.errors.push(
      [message, ...rest].map((part) => (part instanceof Error ? (part.stack ?? part.message) : String(part))).join(' '),
    );
  }
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  debug(message: unknown): void {
    this.debugs.push(String(message));
  }
}
