import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
} from '../protocol/json-rpc.interface.js';
import { McpErrorCode } from '../protocol/error-codes.enum.js';
import type { McpToolDefinition } from '../protocol/mcp-wire.interface.js';
import { MetaKeys } from '../protocol/meta-keys.constants.js';
import { lowerCaseKeys, standardHeaders } from './mcp-headers.util.js';
import { paramHeaders } from './mcp-param-headers.util.js';
import type { McpNameFieldOf } from './mcp-name-field.js';
import { sseData } from './sse-frame.reader.js';
import type { TestingExchange, TestingReply, TestingTransport } from './testing-transport.interface.js';

type FinalResponse = JsonRpcResultResponse | JsonRpcErrorResponse;

/**
 * @internal Talks to a listening server over real Streamable HTTP, as a 2026-07-28 client does: POSTs with the
 * mirrored MCP headers (`Mcp-Name` by `nameFieldOf`, and `Mcp-Param-*` for tools that declare them, from a cached
 * `tools/list`), reads a JSON answer or an SSE stream, and drops the connection to cancel.
 */
export class HttpTestingTransport implements TestingTransport {
  readonly mode = 'http';
  private tools?: Map<string, McpToolDefinition>;

  constructor(
    private readonly url: URL,
    private readonly nameFieldOf: McpNameFieldOf,
  ) {}

  async send(exchange: TestingExchange): Promise<TestingReply> {
    const { options, message } = exchange;
    for (const field of ['user', 'principal', 'request'] as const) {
      if (options[field] !== undefined) {
        throw new TypeError(
          `McpTestingClient: "${field}" is in-process only; over HTTP, send the headers your auth reads`,
        );
      }
    }
    if (options.caller !== undefined) {
      throw new TypeError(
        'McpTestingClient: "caller" is in-process only; over HTTP, send a real token: headers: { authorization: "Bearer …" }',
      );
    }
    if (message.method !== 'tools/call') return this.post(exchange);
    // A stale tool definition is answered with -32020 (header mismatch): list again once and retry, as clients must.
    const reply = await this.post(exchange, await this.toolHeaders(exchange, false));
    if ('error' in reply.response && reply.response.error.code === McpErrorCode.HeaderMismatch) {
      return this.post(exchange, await this.toolHeaders(exchange, true));
    }
    return reply;
  }

  private async post(exchange: TestingExchange, extraHeaders: Record<string, string> = {}): Promise<TestingReply> {
    const { message, options, onNotification } = exchange;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: {
        ...standardHeaders(message, this.nameFieldOf(message.method)),
        ...extraHeaders,
        ...lowerCaseKeys(options.headers),
      },
      body: JSON.stringify(message),
      signal: options.signal,
    });
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream') && response.body) {
      for await (const data of sseData(response.body)) {
        const frame = JSON.parse(data) as FinalResponse | JsonRpcNotification;
        if ('method' in frame && !('id' in frame)) onNotification(frame);
        else if ('id' in frame && frame.id === message.id)
          return { response: frame as FinalResponse, httpStatus: response.status };
      }
      throw new Error(`The SSE stream of ${message.method} ended without a response`);
    }
    const text = await response.text();
    if (!type.startsWith('application/json') || text.length === 0) {
      throw new Error(
        `Unexpected answer to ${message.method}: HTTP ${response.status} ${type || '(no content type)'} ${text}`,
      );
    }
    const wwwAuthenticate = response.headers.get('www-authenticate') ?? undefined;
    return {
      response: JSON.parse(text) as FinalResponse,
      httpStatus: response.status,
      ...(wwwAuthenticate !== undefined && { wwwAuthenticate }),
    };
  }

  /** The `Mcp-Param-*` headers of a call, from the tool's listed definition (listed when unknown, or on `refresh`). */
  private async toolHeaders(exchange: TestingExchange, refresh: boolean): Promise<Record<string, string>> {
    const name = String(exchange.message.params?.name);
    if (refresh || !this.tools?.has(name)) this.tools = await this.listTools(exchange);
    const tool = this.tools.get(name);
    return tool ? paramHeaders(tool.inputSchema, exchange.message.params?.arguments) : {};
  }

  private async listTools({ message, options }: TestingExchange): Promise<Map<string, McpToolDefinition>> {
    const { [MetaKeys.progressToken]: _token, ...meta } = (message.params?._meta ?? {}) as Record<string, unknown>;
    const tools = new Map<string, McpToolDefinition>();
    let cursor: unknown;
    do {
      const list: JsonRpcRequest = {
        jsonrpc: '2.0',
        id: `${message.id}-tools`,
        method: 'tools/list',
        params: { _meta: meta, ...(cursor !== undefined && { cursor }) },
      };
      const { response } = await this.post({ message: list, options, onNotification: () => undefined });
      // Without tools (or without access) there is nothing to mirror; the call itself reports the problem.
      if ('error' in response) return tools;
      for (const tool of response.result.tools as McpToolDefinition[]) tools.set(tool.name, tool);
      cursor = response.result.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }
}
