import { Module } from '@nestjs/common';
import { McpModule, type McpModuleOptions } from 'nest-mcp';
import { OPS_ADMIN_AUTH, OPS_AUTH } from './access/index.js';
import { BuildsModule } from './builds/index.js';
import { mcpOnRedis } from './cluster/index.js';
import { DeploymentsModule } from './deployments/index.js';
import { AdminModule } from './admin/index.js';
import { OPS_ADMIN_PATH, OPS_ADMIN_SERVER, OPS_CONSOLE_SERVER } from './console-servers.constants.js';
import { DeploymentBoardModule } from './deployment-board/index.js';
import { IncidentsModule } from './incidents/index.js';
import { IntegrationsModule } from './integrations/index.js';
import { ServicesModule } from './services/index.js';
import { devWebhookOptions, OpsEventsModule } from './ops-events/index.js';
import { OPS_SKILLS } from './skills/index.js';

// #region docs:app-module
/** The console's MCP server for everyone (`/mcp`): the same options on one process and on every replica of a cluster. */
const OPS_CONSOLE: McpModuleOptions = {
  name: OPS_CONSOLE_SERVER,
  version: '1.0.0',
  title: 'Operations console',
  instructions:
    'Operations console for the service fleet. Start with list_services or the ops://services resource, and ' +
    'read ops://runbook before changing anything. scale_service, restart_service and deploy_release change ' +
    'production: restart_service is destructive, so confirm it with the user first. Admins decommission services and ' +
    'switch feature flags on the admin server (/admin/mcp). Use the incident_summary prompt to draft incident reports, and ' +
    'connect_pagerduty once to let the console page on-call teams. incident_report runs as a task (about ten ' +
    'seconds): poll it with tasks/get and answer its question with tasks/update. build_package builds a package of ' +
    'the repository, reporting progress per file.',
  // With AUTH_ISSUER (`npm start -- --auth`), every HTTP request needs a bearer token for this console, and tools
  // need the ops:read / ops:write / ops:admin scopes (docs/authorization.md). Undefined: no authorization.
  auth: OPS_AUTH,
  // Skills for agents (SEP-2640): triage an incident, roll a release out (apps/demo/skills, docs/skills.md).
  skills: OPS_SKILLS,
  // Events (deployment.finished, incident.opened, service.status_changed; docs/events.md): poll and push streams
  // always; webhooks need a principal (--auth), or MCP_DEV_WEBHOOKS=1 for a local trial (development only: loopback
  // callbacks allowed, every caller of the plain demo is "dev-user").
  ...devWebhookOptions(process.env, OPS_AUTH),
};

/** The feature modules whose handlers the server for everyone serves. */
const CONSOLE_FEATURES = [
  ServicesModule,
  DeploymentsModule,
  DeploymentBoardModule,
  IntegrationsModule,
  IncidentsModule,
  BuildsModule,
  OpsEventsModule,
];

/** The admin server (`/admin/mcp`): the admin tools only, for the admin role (or the `ops:admin` scope). */
const OPS_ADMIN_CONSOLE: McpModuleOptions = {
  name: OPS_ADMIN_SERVER,
  version: '1.0.0',
  title: 'Operations console (admin)',
  instructions:
    'Admin tools of the operations console: decommission_service deletes a service for good (the user confirms in a ' +
    'form), set_feature_flag switches console features such as cost-insights. Every tool needs the admin role.',
  // With authorization on, tokens for this server's own resource URI (…/admin/mcp), with the ops:admin scope.
  auth: OPS_ADMIN_AUTH,
};

/**
 * Root module of the operations console: two MCP servers — `/mcp` for everyone, `/admin/mcp` for admins — each
 * serving the handlers of the modules it includes (docs/servers.md), plus the console's features.
 */
@Module({
  imports: [
    // With REDIS_URL, this process is one replica of a cluster: change events, tasks, used requestStates and runtime
    // registrations live in Redis (nest-mcp-redis), the replicas share MCP_STATE_KEYS, and GET /health reports Redis.
    ...(process.env.REDIS_URL
      ? mcpOnRedis(
          { ...OPS_CONSOLE, include: CONSOLE_FEATURES },
          { ...OPS_ADMIN_CONSOLE, path: OPS_ADMIN_PATH, include: [AdminModule] },
          process.env,
        )
      : [
          McpModule.forRoot({ ...OPS_CONSOLE, include: CONSOLE_FEATURES }),
          McpModule.forRoot({ ...OPS_ADMIN_CONSOLE, path: OPS_ADMIN_PATH, include: [AdminModule] }),
        ]),
    ...CONSOLE_FEATURES,
    AdminModule,
  ],
})
export class AppModule {}
// #endregion docs:app-module
