export { DeploymentsModule } from './deployments.module.js';
export { ReleasePipeline, RELEASE_STEPS, type ReleaseStep } from './release-pipeline.service.js';
export type { Release } from './release.interface.js';
