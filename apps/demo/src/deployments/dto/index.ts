export * from './deploy-release.dto.js';
export * from './deployment.dto.js';
