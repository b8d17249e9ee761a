import { standardHeaders } from './headers.util.js';
import type { ExchangeLog } from './exchange.log.js';
import { AuthRequiredError, McpRpcError, parseBearerChallenge } from './mcp.errors.js';
import { CLIENT_CAPABILITIES, CLIENT_INFO, META, PROTOCOL_VERSION } from './protocol.constants.js';
import { sseData } from './sse.reader.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './wire.types.js';

/** How one request is sent. */
export interface RequestOptions {
  /** Each notification of the request's SSE stream. */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Ask for progress (`progressToken`) and log messages (`logLevel: debug`) on this request. */
  progress?: boolean;
  /** Aborting it closes the request's stream, which cancels the request on the server. */
  signal?: AbortSignal;
  /** Extra headers (`Mcp-Param-*` of a tool call). */
  headers?: Record<string, string>;
}

/** Where the bearer token comes from, if any (signed in, or pasted). */
export type TokenSource = () => string | undefined;

/**
 * The page's MCP client: one POST per request to the endpoint, on the 2026-07-28 wire (spec 2026-07-28:
 * basic/transports/streamable-http). Every request carries the per-request `_meta` (version, capabilities, client
 * info); the answer is one JSON body, or an SSE stream of notifications ending in the response. Every message that
 * crosses the wire goes to the exchange log.
 */
export class McpClient {
  private nextId = 1;

  constructor(
    private readonly endpoint: string,
    private readonly log: ExchangeLog,
    private readonly token: TokenSource,
  ) {}

  /** Sends one request and resolves with its result; a JSON-RPC error rejects with `McpRpcError`. */
  async request<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): Promise<T> {
    const id = this.nextId++;
    const { _meta: givenMeta, ...rest } = params as { _meta?: Record<string, unknown> };
    const meta: Record<string, unknown> = {
      [META.protocolVersion]: PROTOCOL_VERSION,
      [META.clientCapabilities]: CLIENT_CAPABILITIES,
      [META.clientInfo]: CLIENT_INFO,
      ...(options.progress && { progressToken: `progress-${id}`, [META.logLevel]: 'debug' }),
      ...givenMeta,
    };
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params: { ...rest, _meta: meta } };
    const seq = this.log.open(message);
    try {
      const result = await this.exchange<T>(message, seq, options);
      this.log.close(seq, 'done');
      return result;
    } catch (error) {
      const aborted = options.signal?.aborted === true;
      this.log.close(seq, aborted ? 'aborted' : 'failed', aborted ? 'closed by the page' : (error as Error).message);
      throw error;
    }
  }

  private async exchange<T>(message: JsonRpcRequest, seq: number, options: RequestOptions): Promise<T> {
    const token = this.token();
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { ...standardHeaders(message), ...options.headers, ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(message),
      signal: options.signal,
      // The endpoint is the page's own origin; no cookie is ever needed.
      credentials: 'omit',
    });
    const type = response.headers.get('content-type') ?? '';
    this.log.answered(seq, response.status, type);
    if (type.startsWith('text/event-stream') && response.body) {
      for await (const data of sseData(response.body)) {
        const frame = JSON.parse(data) as JsonRpcResponse | JsonRpcNotification;
        this.log.received(seq, frame);
        if (!('id' in frame)) options.onNotification?.(frame);
        else if (frame.id === message.id) return this.resultOf<T>(frame, response);
      }
      throw new Error(`The stream of ${message.method} ended without a response`);
    }
    const text = await response.text();
    if (!type.startsWith('application/json') || text === '') {
      throw (
        this.challengeOf(response) ??
        new Error(`HTTP ${response.status} ${type || 'without content type'}: ${text.slice(0, 200)}`)
      );
    }
    const frame = JSON.parse(text) as JsonRpcResponse;
    this.log.received(seq, frame);
    return this.resultOf<T>(frame, response);
  }

  private resultOf<T>(frame: JsonRpcResponse, response: Response): T {
    if ('result' in frame) return frame.result as T;
    throw this.challengeOf(response, frame.error.message) ?? new McpRpcError(frame.error, response.status);
  }

  /** A 401, or a 403 for a scope: the challenge, for the sign-in panel. */
  private challengeOf(response: Response, message?: string): AuthRequiredError | undefined {
    const challenge = parseBearerChallenge(response.headers.get('www-authenticate'));
    if (response.status !== 401 && !(response.status === 403 && challenge.error === 'insufficient_scope'))
      return undefined;
    const description =
      challenge.error_description ??
      message ??
      (response.status === 401 ? 'Sign in to use this server' : 'A broader scope is needed');
    return new AuthRequiredError(
      response.status,
      challenge.resource_metadata,
      challenge.scope,
      challenge.error,
      description,
    );
  }

  /** Every page of a list (`tools/list`, …), following `nextCursor`. */
  async listAll<T>(method: string, key: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request<Record<string, unknown>>(method, cursor === undefined ? {} : { cursor });
      items.push(...((page[key] as T[] | undefined) ?? []));
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    return items;
  }
}
