import { Global, Module } from '@nestjs/common';
import { OpsEvents } from './ops-events.js';

/** The console's event types; the features emit them with `McpEvents` (which `McpModule` provides globally). */
@Global()
@Module({ providers: [OpsEvents] })
export class OpsEventsModule {}
