import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/apps-host/', import.meta.url));

/** One JSON-RPC request the host page sent to the MCP server, as the proxy saw it pass. */
export interface ProxiedRequest {
  method: string;
  /** `params.name` (tools/call, prompts/get) or `params.uri` (resources/read). */
  target?: string;
}

/** The web host of the MCP Apps browser test, on 127.0.0.1. */
export interface AppsHost {
  /** The host page for one tool call (query as host.page.ts reads it). */
  pageUrl(tool: string, args: Record<string, unknown>, wire: 'modern' | 'legacy'): string;
  /** The origin of the sandbox proxy (another port, so another origin than the host page). */
  readonly sandboxOrigin: string;
  /** Every JSON-RPC request that passed to the MCP server, in order. */
  readonly requests: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the host: one server for the host page (host.html, the host bundle built here with esbuild from
 * host.page.ts — the official client and ext-apps host bridge, no CDN) that also forwards /mcp to `mcpUrl`, so the
 * page talks to the MCP server same-origin; and one server, on another port, for the sandbox proxy (sandbox.html).
 */
export async function startAppsHost(mcpUrl: URL): Promise<AppsHost> {
  const bundle = await build({
    entryPoints: [`${FIXTURES}host.page.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'error',
  });
  const hostJs = bundle.outputFiles[0].text;
  const hostHtml = readFileSync(`${FIXTURES}host.html`, 'utf8');
  const sandboxHtml = readFileSync(`${FIXTURES}sandbox.html`, 'utf8');
  const requests: ProxiedRequest[] = [];

  const host = await listen((request, response) => {
    const path = new URL(request.url ?? '/', 'http://host').pathname;
    if (path === '/mcp') return forward(request, response, mcpUrl, requests);
    if (request.method !== 'GET') return send(response, 405, 'text/plain', 'method not allowed');
    if (path === '/host.html') return send(response, 200, 'text/html; charset=utf-8', hostHtml);
    if (path === '/host.js') return send(response, 200, 'text/javascript; charset=utf-8', hostJs);
    send(response, 404, 'text/plain', 'not found');
  });
  const sandbox = await listen((request, response) => {
    if (request.method === 'GET' && request.url === '/sandbox.html')
      return send(response, 200, 'text/html; charset=utf-8', sandboxHtml);
    send(response, 404, 'text/plain', 'not found');
  });
  const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sandboxOrigin = origin(sandbox);
  return {
    sandboxOrigin,
    requests,
    pageUrl: (tool, args, wire) =>
      `${origin(host)}/host.html?${new URLSearchParams({ tool, args: JSON.stringify(args), wire, sandbox: sandboxOrigin })}`,
    close: async () => {
      for (const server of [host, sandbox]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

/** Forwards one request to the MCP server as is (streams included), recording the JSON-RPC requests it carries. */
function forward(request: IncomingMessage, response: ServerResponse, mcpUrl: URL, requests: ProxiedRequest[]): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    record(body, requests);
    const upstream = httpRequest(
      {
        host: mcpUrl.hostname,
        port: mcpUrl.port,
        path: mcpUrl.pathname,
        method: request.method,
        headers: { ...request.headers, host: mcpUrl.host },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.headersSent || send(response, 502, 'text/plain', 'MCP server unreachable'));
    response.on('close', () => upstream.destroy());
    upstream.end(body);
  });
}

function record(body: Buffer, requests: ProxiedRequest[]): void {
  if (body.length === 0) return;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
      if (typeof method !== 'string') continue;
      const target =
        typeof params?.name === 'string' ? params.name : typeof params?.uri === 'string' ? params.uri : undefined;
      requests.push({ method, ...(target !== undefined && { target }) });
    }
  } catch {
    // Not JSON: the MCP server answers it; nothing to record.
  }
}
