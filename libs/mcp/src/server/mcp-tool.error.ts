import { IntrinsicException } from '@nestjs/common';

/**
 * A tool failure whose message is meant for the model (not logged by Nest's exception filters): thrown from a tool, it becomes an `isError: true`
 * result with this message. Other unexpected errors are logged and answered with a generic text, so that
 * internals never reach the wire.
 *
 * @example `throw new McpToolError('No flight found for that date; try another day.')`
 */
export class McpToolError extends IntrinsicException {
  constructor(message: string) {
    super(message);
    this.name = 'McpToolError';
  }
}
