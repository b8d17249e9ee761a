/*
 * Skills (SEP-2640, `io.modelcontextprotocol/skills`): what other layers and the public API may use.
 */
export { SKILLS_EXTENSION, SKILL_LIMITS } from './skills.constants.js';
export { McpSkill, type McpSkillOptions } from './mcp-skill.decorator.js';
export type { McpSkillFiles } from './mcp-skill-files.interface.js';
export { McpSkillDefinitionError } from './skill-definition.error.js';
export { McpSkills } from './skills.registry.js';
export { McpSkillMethods } from './skill-methods.service.js';
export { skillProviders } from './skills.providers.js';
