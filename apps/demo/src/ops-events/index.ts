export { OpsEventsModule } from './ops-events.module.js';
export type { DeploymentFinished, IncidentOpened, ServiceStatusChanged } from './ops-events.js';
export { devWebhookOptions, DEV_WEBHOOK_PRINCIPAL, type DevWebhookEnv } from './dev-webhooks.config.js';
