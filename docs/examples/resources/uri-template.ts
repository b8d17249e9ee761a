// #region docs:uri-template
import { UriTemplate } from 'nest-mcp/backend';

const logs = new UriTemplate('ops://services/{name}/logs');
logs.expand({ name: 'checkout-api' }); // 'ops://services/checkout-api/logs'
logs.match('ops://services/checkout-api/logs'); // { name: 'checkout-api' }
// #endregion docs:uri-template

export { logs };
