export { DeploymentBoardModule } from './deployment-board.module.js';
export { DEPLOYMENT_BOARD_BUNDLE, DEPLOYMENT_BOARD_VIEW } from './deployment-board.constants.js';
export { Rollout, RolloutTracker } from './rollout.tracker.js';
export type { RolloutState, RolloutStatus } from './rollout.interface.js';
