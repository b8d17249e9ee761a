import { McpErrorCode } from '../protocol/error-codes.enum.js';
import { McpError } from '../protocol/mcp.error.js';
import type { CallCancellation } from '../protocol/call-cancellation.js';
import type { LiveClientRequests } from '../protocol/mcp-request-scope.interface.js';
import type { ResponseChannel } from '../protocol/response-channel.js';
import type { LegacySession } from './legacy-session.js';

/**
 * Sends a call's server→client requests (elicitation, sampling, roots) on that call's own SSE stream and waits for the
 * session to receive the answers (spec 2025-11-25: basic/transports, "Sending Messages to the Server"), with a timeout
 * and the call's cancellation.
 */
export class SessionClientRequests implements LiveClientRequests {
  constructor(
    /** The session the call belongs to (its tasks are bound to it: `McpLegacyTasks`). */
    readonly session: LegacySession,
    private readonly channel: ResponseChannel,
    private readonly cancellation: CallCancellation,
    private readonly timeoutMs: number,
  ) {}

  async request(method: string, params?: Readonly<Record<string, unknown>>): Promise<unknown> {
    const { id, response, cancel } = this.session.expectResponse();
    const sent = this.channel.request(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: { ...params } },
    );
    if (!sent) {
      // Nothing will await this answer: settle it quietly, or the rejection would be unhandled (and end the process).
      response.catch(() => undefined);
      cancel(new Error('The call already ended'));
      throw McpError.internal();
    }
    const timer = setTimeout(() => cancel(new Error(`The client did not answer ${method} in time`)), this.timeoutMs);
    const onAbort = () => cancel(new Error('The call was cancelled'));
    const signal = this.cancellation.signal;
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const message = await response;
      if ('error' in message) {
        throw new McpError(
          message.error.code ?? McpErrorCode.InternalError,
          message.error.message ?? 'The client refused',
          message.error.data,
        );
      }
      return message.result;
    } catch (error) {
      if (error instanceof McpError) throw error;
      throw new McpError(McpErrorCode.InternalError, (error as Error).message);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
