import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { echoResponse, streamCount } from './shared/floor-responses.js';
import { announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/** The bottom floor: a bare `node:http` handler, same JSON as nest-mcp's `echo` (`POST /mcp`), same `count` frames (`POST /stream`). */

const MAX_BODY = 4 * 1024 * 1024;

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) request.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
  });
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST' || (request.url !== '/mcp' && request.url !== '/stream')) {
    response.writeHead(404).end();
    return;
  }
  let body: unknown;
  try {
    body = await readJson(request);
  } catch {
    response.writeHead(400).end();
    return;
  }
  if (request.url === '/stream') {
    await streamCount(body, response);
    return;
  }
  const json = JSON.stringify(echoResponse(body));
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  response.end(json);
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(args.port, HOST, resolve));
  const address = server.address() as { port: number };
  announce({
    name: 'bare node:http floor',
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

runMain(main);
