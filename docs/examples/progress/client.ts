import { connect } from '../connect.js';

/* Progress against a server with the `longJob` tool of test/fixtures/interactive.fixture.ts. */
const client = await connect();

// #region docs:client
const result = await client.callTool(
  { name: 'longJob', arguments: { steps: 3 } },
  { onprogress: ({ progress, total, message }) => console.log(progress, total, message) },
);
// 0.5 1.5 'step 1 of 3'
// 1 1.5 'step 2 of 3'
// 1.5 1.5 'step 3 of 3'
// #endregion docs:client
console.log(result.content);

await client.close();
