// #region docs:client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const client = new Client(
  { name: 'my-client', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
client.setRequestHandler('elicitation/create', async (request) => {
  console.log(request.params.message); // Decommission inventory-sync? Its 0 replicas and its logs are deleted for good.
  return { action: 'accept', content: { confirmName: 'inventory-sync', reason: 'replaced by stock-sync' } };
});
const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3000/admin/mcp'), {
  requestInit: { headers: { 'x-ops-role': 'admin' } }, // decommission_service is on the admin server, for admins
});
await client.connect(transport);

const result = await client.callTool({ name: 'decommission_service', arguments: { name: 'inventory-sync' } });
console.log(result.content); // [ { type: 'text', text: 'Decommissioned inventory-sync (replaced by stock-sync).' } ]
// #endregion docs:client

await client.close();
