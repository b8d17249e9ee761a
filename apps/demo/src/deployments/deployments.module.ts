import { Module } from '@nestjs/common';
import { DeploymentBoardModule } from '../deployment-board/index.js';
import { ServicesModule } from '../services/index.js';
import { DeploymentsTools } from './deployments.tools.js';
import { ReleasePipeline } from './release-pipeline.service.js';

/** Rollouts of new versions through the release pipeline, shown live on the deployment board (an MCP App). */
@Module({
  imports: [ServicesModule, DeploymentBoardModule],
  providers: [ReleasePipeline, DeploymentsTools],
})
export class DeploymentsModule {}
