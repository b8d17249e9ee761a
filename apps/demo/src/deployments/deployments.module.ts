import { Module } from '@nestjs/common';
import { ServicesModule } from '../services/index.js';
import { DeploymentsTools } from './deployments.tools.js';
import { ReleasePipeline } from './release-pipeline.service.js';

/** Rollouts of new versions through the release pipeline. */
@Module({
  imports: [ServicesModule],
  providers: [ReleasePipeline, DeploymentsTools],
})
export class DeploymentsModule {}
