export * from './rollout.dto.js';
