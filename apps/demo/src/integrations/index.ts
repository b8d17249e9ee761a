export { IntegrationsModule } from './integrations.module.js';
export { PagerDutyConnection, type PagerDutyStatus } from './pagerduty-connection.service.js';
export { PAGERDUTY_SIGN_IN_URL } from './pagerduty.constants.js';
