import { createServer } from 'node:http';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, InMemoryServerEventBus, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { YIELD_EVERY, yieldToIo } from './shared/bench-tools.constants.js';
import { announce, HOST, parseServerArgs, runMain } from './server-runtime.js';

/**
 * The official SDK v2 (`@modelcontextprotocol/server` 2.4.0) in its fastest production setup: the modern-only
 * `createMcpHandler` (2026-07-28 wire, `legacy: 'reject'`) wrapped once with `toNodeHandler` on a bare `node:http`
 * server, behind the loopback Host/Origin guards its README puts in front of a hand-wired `node:http` server.
 * The SDK builds one `McpServer` per HTTP request from the factory, as designed; the schemas are built once.
 */

const echoInput = z.object({ text: z.string() });
const countInput = z.object({ n: z.number().int().min(0).max(1_000_000) });
const generatedInput = z.object({
  text: z.string().describe('Any text'),
  repeat: z.number().int().min(1).max(10).optional(),
});

function buildServer(generatedTools: number): McpServer {
  const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' });
  server.registerTool('echo', { description: 'Returns its text', inputSchema: echoInput }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'count',
    { description: 'Sends n progress notifications, then returns', inputSchema: countInput },
    async ({ n }, ctx: ServerContext) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let index = 1; index <= n; index++) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress: index, total: n },
          });
        }
        if (index % YIELD_EVERY === 0) await yieldToIo();
      }
      return { content: [{ type: 'text', text: `counted ${n}` }] };
    },
  );
  for (let index = 0; index < generatedTools; index++) {
    const name = `tool_${index}`;
    server.registerTool(
      name,
      { description: `Generated tool number ${index}, for the bootstrap benchmark`, inputSchema: generatedInput },
      async ({ text }) => ({
        content: [{ type: 'text', text: `${name}: ${text}` }],
      }),
    );
  }
  return server;
}

async function main(): Promise<void> {
  const args = parseServerArgs();
  // The default in-process bus, made explicit so that the listen workload can count open subscriptions.
  const bus = new InMemoryServerEventBus();
  const handler = createMcpHandler(() => buildServer(args.tools), { legacy: 'reject', maxSubscriptions: 20_000, bus });
  const nodeHandler = toNodeHandler(handler);
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const server = createServer((request, response) => {
    if (request.url !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    if (!validateHost(request, response) || !validateOrigin(request, response)) return;
    void nodeHandler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(args.port, HOST, resolve));
  const address = server.address() as { port: number };
  announce({
    name: `official SDK v2 (node:http${args.tools ? `, ${args.tools} generated tools` : ''})`,
    port: address.port,
    commands: { 'listen-open': () => bus.listenerCount },
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

runMain(main);
