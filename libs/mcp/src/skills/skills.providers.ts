import type { Provider } from '@nestjs/common';
import { McpSkillMetadataAccessor } from './skill-metadata.accessor.js';
import { McpSkillMethods } from './skill-methods.service.js';
import { McpSkillsExplorer } from './skills.explorer.js';
import { McpSkills } from './skills.registry.js';

/**
 * The providers of skills, for `McpModule`: the skills registry, the explorer that fills it at bootstrap, and the
 * extension serving `skills/list`, `skills/get` and `resources/directory/read` (`McpModule` lists it among the
 * `MCP_EXTENSIONS`).
 */
export function skillProviders(): Provider[] {
  return [McpSkills, McpSkillMetadataAccessor, McpSkillsExplorer, McpSkillMethods];
}
