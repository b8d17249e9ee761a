import { Injectable } from '@nestjs/common';
import { McpArgs, McpTool, McpToolError } from 'nest-mcp';
import { OPS_READ, OPS_WRITE, OpsScopes } from '../access/index.js';
import { ServiceNameDto } from '../services/dto/index.js';
import { RolloutDto } from './dto/index.js';
import { RolloutTracker } from './rollout.tracker.js';

/**
 * The deployment board's own tools: app-only (`visibility: ['app']`), so a host offers them to the board and never to
 * the model, and clients without MCP Apps do not list them. They are ordinary tools for the server: scopes apply.
 */
@Injectable()
export class DeploymentBoardTools {
  constructor(private readonly rollouts: RolloutTracker) {}

  @OpsScopes(OPS_READ)
  @McpTool({
    name: 'deployment_status',
    title: 'Rollout status',
    description: 'The latest rollout of a service: its steps, how many are done, and whether it is still running.',
    input: ServiceNameDto,
    output: RolloutDto,
    annotations: { readOnlyHint: true },
    app: { visibility: ['app'] },
  })
  deploymentStatus(@McpArgs('name') name: string): RolloutDto {
    return this.find(name).state;
  }

  @OpsScopes(OPS_WRITE)
  @McpTool({
    name: 'cancel_deployment',
    title: 'Cancel a rollout',
    description: 'Stops the running rollout of a service at its current step; the service keeps its current version.',
    input: ServiceNameDto,
    output: RolloutDto,
    annotations: { destructiveHint: false, idempotentHint: true },
    app: { visibility: ['app'] },
  })
  cancelDeployment(@McpArgs('name') name: string): RolloutDto {
    const rollout = this.find(name);
    if (!rollout.cancel())
      throw new McpToolError(
        `The rollout of ${name} ${rollout.state.version} already ended (${rollout.state.status}).`,
      );
    // The pipeline stops at once; deploy_release records the outcome, which the next status shows.
    return rollout.state;
  }

  private find(name: string) {
    const rollout = this.rollouts.find(name);
    if (!rollout) throw new McpToolError(`No rollout of ${name} since the console started.`);
    return rollout;
  }
}
