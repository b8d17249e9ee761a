import { YIELD_EVERY, yieldToIo } from './bench-tools.constants.js';

/**
 * The bytes the floors answer with: the same JSON-RPC response nest-mcp's `echo` gives (result, `resultType`,
 * `serverInfo` in `_meta`), and the same SSE frames its `count` streams. Floors skip everything MCP does
 * (headers, `_meta`, schemas, dispatch); they only parse the body and write these.
 */

export const SERVER_INFO_META = { 'io.modelcontextprotocol/serverInfo': { name: 'nest-mcp-bench', version: '1.0.0' } };

interface CallBody {
  id?: string | number;
  params?: { arguments?: { text?: unknown; n?: unknown }; _meta?: { progressToken?: unknown } };
}

/** The `echo` response object for a parsed request body. */
export function echoResponse(body: unknown): object {
  const call = (body ?? {}) as CallBody;
  return {
    jsonrpc: '2.0',
    id: call.id ?? null,
    result: {
      resultType: 'complete',
      content: [{ type: 'text', text: String(call.params?.arguments?.text ?? '') }],
      _meta: SERVER_INFO_META,
    },
  };
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** The minimal writable the floor streams to (a Node `ServerResponse`, Express's or Fastify's raw one). */
export interface FrameSink {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
}

/**
 * Streams `count`'s frames for a parsed request body: n progress notifications, then the result. Yields like the
 * real tools; ignores backpressure (a floor buffers whatever the client has not read yet).
 */
export async function streamCount(body: unknown, sink: FrameSink): Promise<void> {
  const call = (body ?? {}) as CallBody;
  const n = Number(call.params?.arguments?.n ?? 0);
  const token = call.params?._meta?.progressToken ?? 'bench';
  sink.writeHead(200, { ...SSE_HEADERS });
  for (let index = 1; index <= n; index++) {
    const notification = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: index, total: n },
    };
    sink.write(`event: message\ndata: ${JSON.stringify(notification)}\n\n`);
    if (index % YIELD_EVERY === 0) await yieldToIo();
  }
  const result = {
    jsonrpc: '2.0',
    id: call.id ?? null,
    result: { resultType: 'complete', content: [{ type: 'text', text: `counted ${n}` }], _meta: SERVER_INFO_META },
  };
  sink.end(`event: message\ndata: ${JSON.stringify(result)}\n\n`);
}
