import { Module } from '@nestjs/common';
import { IntegrationsTools } from './integrations.tools.js';
import { PagerDutyConnection } from './pagerduty-connection.service.js';

/** Third-party integrations of the console (PagerDuty). */
@Module({
  providers: [PagerDutyConnection, IntegrationsTools],
  exports: [PagerDutyConnection],
})
export class IntegrationsModule {}
