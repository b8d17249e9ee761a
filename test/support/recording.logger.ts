import type { LoggerService } from '@nestjs/common';

/** A Nest logger that keeps its warnings (and drops the rest), for tests that assert what was warned. */
export class RecordingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}
