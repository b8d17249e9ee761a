import { Injectable } from '@nestjs/common';
import { McpArgs, McpCtx, McpEvents, McpTool, McpToolContext, McpToolError } from 'nest-mcp';
import { OPS_WRITE, OpsScopes } from '../access/index.js';
import { DEPLOYMENT_BOARD_VIEW, RolloutTracker } from '../deployment-board/index.js';
import type { DeploymentFinished } from '../ops-events/index.js';
import { ServiceCatalog, ServiceStatus } from '../services/index.js';
import { DeploymentDto, DeployReleaseDto } from './dto/index.js';
import { ReleasePipeline } from './release-pipeline.service.js';

/** Rolling out new versions: a long job that reports progress and stops when the call is cancelled. */
@Injectable()
@OpsScopes(OPS_WRITE)
export class DeploymentsTools {
  constructor(
    private readonly catalog: ServiceCatalog,
    private readonly pipeline: ReleasePipeline,
    private readonly rollouts: RolloutTracker,
    private readonly events: McpEvents,
  ) {}

  @McpTool({
    name: 'deploy_release',
    title: 'Deploy a release',
    description:
      'Rolls a new version of a service out step by step (build, push, migrate, canary, traffic shift, cleanup), ' +
      'reporting progress; takes a few seconds. Cancelling the call stops the rollout and the service keeps its ' +
      'current version.',
    input: DeployReleaseDto,
    output: DeploymentDto,
    annotations: { idempotentHint: false },
    // Hosts with MCP Apps show the rollout live on the deployment board (apps/demo/src/deployment-board).
    app: { view: DEPLOYMENT_BOARD_VIEW },
  })
  async deployRelease(
    @McpArgs() { name, version }: DeployReleaseDto,
    @McpCtx() ctx: McpToolContext,
  ): Promise<DeploymentDto> {
    const service = this.catalog.find(name);
    if (!service)
      throw new McpToolError(`No service named "${name}". Known services: ${this.catalog.names().join(', ')}.`);
    if (service.status === ServiceStatus.Stopped)
      throw new McpToolError(`${name} is stopped; restart it with restart_service first.`);
    if (service.version === version) throw new McpToolError(`${name} already runs ${version}.`);

    const progress = ctx.percentProgress();
    const steps = this.pipeline.steps;
    const rollout = this.rollouts.start(name, version, service.version, steps, ctx.signal);
    for (const [index, step] of steps.entries()) {
      const where = `step ${index + 1}/${steps.length} (${step})`;
      ctx.log('info', `${name} ${version}: ${where}`, 'deploy_release');
      try {
        // The rollout's signal aborts when the client cancels the call or goes away, or when the deployment board
        // cancels the rollout: the pipeline stops where it is.
        await this.pipeline.run(step, { service: name, version }, rollout.signal);
      } catch (error) {
        const outcome = rollout.signal.aborted ? 'cancelled' : `failed: ${(error as Error).message}`;
        this.catalog.note(name, `deploy of ${version} ${outcome} at ${where}`);
        const message = `Deploy of ${version} ${outcome} at ${where}. ${name} still runs ${service.version}.`;
        rollout.end(rollout.signal.aborted ? 'cancelled' : 'failed', message);
        await this.finished({
          service: name,
          version,
          fromVersion: service.version,
          outcome: rollout.signal.aborted ? 'cancelled' : 'failed',
        });
        throw new McpToolError(message);
      }
      rollout.advance();
      progress.emit((index + 1) / steps.length, step);
    }
    this.catalog.deploy(name, version);
    rollout.end('succeeded');
    await this.finished({ service: name, version, fromVersion: service.version, outcome: 'succeeded' });
    return { service: name, fromVersion: service.version, toVersion: version, steps: steps.length };
  }

  /** Tells the `deployment.finished` subscribers (an event emitted once per rollout: its id is a fresh UUID). */
  private async finished(deployment: DeploymentFinished): Promise<void> {
    await this.events.emit('deployment.finished', deployment);
  }
}
