import { connect } from '../connect.js';

/* Completion requests against the demo (`npm start`). */
const client = await connect();

// #region docs:client
const result = await client.complete({
  ref: { type: 'ref/prompt', name: 'incident_summary' },
  argument: { name: 'service', value: 'ch' },
});
console.log(result.completion.values); // [ 'checkout-api' ]

const names = await client.complete({
  ref: { type: 'ref/resource', uri: 'ops://services/{name}' }, // the template exactly as declared
  argument: { name: 'name', value: 'pay' },
  context: { arguments: {} },
});
console.log(names.completion.values); // [ 'payments-worker' ]
// #endregion docs:client

await client.close();
