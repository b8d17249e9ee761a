import type { McpCacheHints, McpIcon } from '../protocol/mcp-wire.interface.js';
import type { McpEventBus } from '../subscriptions/mcp-event-bus.interface.js';

/** Cache hints per kind of cacheable result; each falls back to `default`. */
export interface McpCacheHintOptions {
  default?: McpCacheHints;
  discover?: McpCacheHints;
  toolsList?: McpCacheHints;
  promptsList?: McpCacheHints;
  resourcesList?: McpCacheHints;
  resourceTemplatesList?: McpCacheHints;
  resourcesRead?: McpCacheHints;
}

/** How `requestState` of Multi Round-Trip Requests is sealed. */
export interface McpRequestStateOptions {
  /**
   * AES-256 keys, base64 (32 bytes each). The first seals, all are tried to open (rotation).
   * Without keys a random per-process key is used and a warning is logged: fine for one process only.
   */
  keys?: string[];
  /** How long a sealed state stays valid, in milliseconds. Default 5 minutes. */
  ttlMs?: number;
}

/** Bounds of the per-response queue used when a client reads a stream slower than the server writes it. */
export interface McpStreamingOptions {
  /** Frames kept waiting for a slow client before progress is coalesced and other notifications dropped. Default 128. */
  maxQueuedFrames?: number;
  /** Bytes kept waiting for a slow client, likewise. Default 64 KiB. */
  maxQueuedBytes?: number;
}

/** Options of `McpModule.forRoot` / `forRootAsync`. */
export interface McpModuleOptions {
  /** Server name, sent as `serverInfo.name`. */
  name: string;
  /** Server version, sent as `serverInfo.version`. */
  version: string;
  /** Display name. */
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: McpIcon[];
  /** Guidance for the model, returned by `server/discover`. */
  instructions?: string;
  /**
   * Host header values accepted (DNS-rebinding protection), e.g. `['mcp.example.com']`; a port is ignored.
   * Default: on a loopback connection only `localhost`, `127.0.0.1` and `[::1]`; elsewhere any host.
   */
  allowedHosts?: string[];
  /**
   * Origin header values accepted when a browser sends one, e.g. `['https://app.example.com']`.
   * Default: loopback origins on a loopback connection, otherwise the same origin as the Host header.
   * A request without `Origin` is always accepted.
   */
  allowedOrigins?: string[];
  /** Largest accepted request body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Cache hints (`ttlMs`, `cacheScope`) of cacheable results. Default `{ ttlMs: 0, cacheScope: 'private' }`. */
  cacheHints?: McpCacheHintOptions;
  /** Items per page of `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`. Default 100. */
  pageSize?: number;
  /** Sealing of `requestState`. */
  requestState?: McpRequestStateOptions;
  /** Backpressure bounds of streamed responses. */
  streaming?: McpStreamingOptions;
  /**
   * Who is calling, for binding `requestState` to its caller: e.g. `(req) => req.user?.sub` after an auth guard.
   * Receives the framework's HTTP request. Default: no principal.
   */
  principal?: (request: unknown) => string | undefined;
  /**
   * Carries change events (`McpPublisher`, runtime registration) to listen streams. Default: in-process only;
   * give a shared bus (e.g. Redis pub/sub) when several replicas serve the same clients.
   */
  eventBus?: McpEventBus;
  /** Most `subscriptions/listen` streams open at once; more are refused with HTTP 503. Default 10,000. */
  maxListenStreams?: number;
  /** Interval of keep-alive comments on listen streams, in milliseconds. Default 15,000. */
  keepAliveMs?: number;
  /**
   * Longest a `tools/call`, `prompts/get` or `resources/read` (or any other request) may run, in milliseconds; then
   * its `ctx.signal` aborts and the client gets `-32603`. `0` disables it. Default 5 minutes. Listen streams are
   * exempt.
   */
  callTimeoutMs?: number;
  /** On shutdown, how long calls in flight may take to answer after their signal aborted. Default 10 seconds. */
  shutdownTimeoutMs?: number;
  /** Deepest nesting of arrays and objects accepted in a request body. Default 64. */
  maxJsonDepth?: number;
  /** 2025-11-25 sessions idle longer than this expire (later requests get 404), in milliseconds. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Most 2025-11-25 sessions at once; `initialize` beyond it is refused with HTTP 503. Default 10,000. */
  maxSessions?: number;
  /** How long a 2025-11-25 server→client request (elicitation, sampling, roots) waits for its answer. Default 10 minutes. */
  clientRequestTimeoutMs?: number;
  /** Put `io.modelcontextprotocol/serverInfo` in every result's `_meta`. Default true. */
  serverInfoInResults?: boolean;
  /**
   * Where handlers' progress goes when a request carries no progress token. `'mcp'` (default): nowhere, as the spec
   * requires. `'stderr'`: also to stderr, one NDJSON `ProgressEvent` per report (for CLI runs and scripts that read
   * the server's stderr). Requests with a token get `notifications/progress` either way, and nothing on stderr.
   */
  progress?: 'mcp' | 'stderr';
  /**
   * Tool arguments that fail `inputSchema`: an `isError` result the model can correct (`'result'`, default),
   * or a JSON-RPC `-32602` error (`'protocol'`).
   */
  invalidToolArguments?: 'result' | 'protocol';
}

/** Static options of the module, fixed when it is imported (they shape routes). */
export interface McpModuleExtras {
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
  /**
   * Registers the module globally, so `McpRegistry` and `McpPublisher` can be injected in any module. Default true;
   * set false when one application serves several MCP endpoints.
   */
  isGlobal?: boolean;
}
