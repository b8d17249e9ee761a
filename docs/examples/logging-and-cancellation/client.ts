import { connect } from '../connect.js';

/* Per-request logging against a server with the `chatty` tool of test/fixtures/streaming.fixture.ts. */
const client = await connect();

// #region docs:client
client.setNotificationHandler('notifications/message', (notification) => console.log(notification.params));
await client.callTool({ name: 'chatty', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'critical' } });
// { level: 'critical', logger: 'chatty', data: { level: 'critical', note: 'a critical message' } }
// … then 'alert' and 'emergency'
// #endregion docs:client

await client.close();
