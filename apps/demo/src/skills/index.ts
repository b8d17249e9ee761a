export { OPS_SKILLS } from './ops-skills.config.js';
