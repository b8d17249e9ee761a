import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * The client of the guides' client examples: the official one, pinned to the 2026-07-28 wire (see
 * docs/getting-started.md), connected to a server on 127.0.0.1:3000 with the given capabilities.
 */
export async function connect(capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client(
    { name: 'my-client', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3000/mcp')));
  return client;
}
