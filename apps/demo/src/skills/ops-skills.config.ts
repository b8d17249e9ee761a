import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpSkillsOptions } from 'nest-mcp';
import { OPS_AUTH, OPS_READ } from '../access/index.js';

/**
 * `apps/demo/skills`, found from this file in the sources (`npm run start` of the TypeScript, the tests) and in the
 * build (dist/ mirrors the sources but holds no skills folder): the nearest ancestor directory that has it.
 */
function opsSkillsDirectory(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'apps/demo/skills');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('apps/demo/skills not found above the ops console');
  }
}

// #region docs:ops-skills
/**
 * The console's skills (SEP-2640): how to triage an incident and how to roll a release out with this console's tools,
 * served as `skill://ops/triage-incident/…` and `skill://ops/safe-rollout/…`, read once at startup. With authorization
 * on, reading them needs `ops:read`, like the console's resources.
 */
export const OPS_SKILLS: McpSkillsOptions = {
  roots: [{ directory: opsSkillsDirectory(), scopes: OPS_AUTH ? [OPS_READ] : [] }],
  directoryRead: true,
  ttlMs: 5 * 60_000,
};
// #endregion docs:ops-skills
