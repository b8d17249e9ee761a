import { Module } from '@nestjs/common';
import { DeploymentBoardTools } from './deployment-board.tools.js';
import { DeploymentBoardView } from './deployment-board.view.js';
import { RolloutTracker } from './rollout.tracker.js';

/**
 * The deployment board, an MCP App (`io.modelcontextprotocol/ui`): the view `deploy_release` names, its app-only
 * tools, and the tracker of rollouts they read. DeploymentsModule imports it to report its rollouts.
 */
@Module({
  providers: [RolloutTracker, DeploymentBoardTools, DeploymentBoardView],
  exports: [RolloutTracker],
})
export class DeploymentBoardModule {}
