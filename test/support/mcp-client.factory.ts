import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

/** An official MCP client pinned to the 2026-07-28 wire, connected to `url`. */
export async function connectClient(
  url: URL,
  options: { capabilities?: Record<string, unknown>; fetch?: typeof fetch } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'nest-mcp-e2e', version: '1.0.0' },
    { capabilities: options.capabilities ?? {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(url, options.fetch ? { fetch: options.fetch } : undefined);
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion?.()).toBe('2026-07-28');
  return client;
}
