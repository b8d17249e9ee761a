// #region docs:client
// client.ts
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const client = new Client(
  { name: 'my-client', version: '1.0.0' },
  { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3000/mcp')));

const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name)); // [ 'add' ]

const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
console.log(result.structuredContent); // { sum: 42 }
console.log(result.content); // [ { type: 'text', text: '{"sum":42}' } ]

await client.close();
// #endregion docs:client
