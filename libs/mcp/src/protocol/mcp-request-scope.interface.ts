import type { JsonObject, JsonRpcId } from './json-rpc.interface.js';
import type { McpRequestMeta } from './request-meta.interface.js';
import type { ResponseChannel } from './response-channel.js';

/** Everything one incoming request carries through the layers (internal). */
export interface McpRequestScope {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: JsonObject;
  readonly meta: McpRequestMeta;
  /** Aborts when the client goes away or the server shuts down. */
  readonly signal: AbortSignal;
  /** Where notifications and the final response of this request go. */
  readonly channel: ResponseChannel;
  /** The HTTP request and response (Express or Fastify objects), when the call came over HTTP. */
  readonly httpRequest?: unknown;
  readonly httpResponse?: unknown;
  /** The authenticated caller, when a principal source is configured. */
  readonly principal?: string;
}
