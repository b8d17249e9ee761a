import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Injectable } from '@nestjs/common';
import { McpSkill, type McpSkillFiles, type McpSkillsOptions } from 'nest-mcp';

/**
 * `apps/conformance/skills`, found from this file both in the sources and in the build (dist/ mirrors the tree but
 * holds no skills folder): the nearest ancestor that has it.
 */
function fixtureSkillsDirectory(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'apps/conformance/skills');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('apps/conformance/skills not found above the fixture');
  }
}

/**
 * The skills of the conformance fixture (SEP-2640 scenarios): the folder skill `conformance/fixture-basics`, listed
 * first, with a subdirectory, supporting files (text and binary) and the nested skill `nested-helper`.
 */
export const CONFORMANCE_SKILLS: McpSkillsOptions = {
  roots: [fixtureSkillsDirectory()],
  directoryRead: true,
  ttlMs: 60_000,
};

/** Skills declared by a provider: one reachable only by URI (not listed), one produced at each read (dynamic). */
@Injectable()
export class ConformanceSkills {
  private reads = 0;

  @McpSkill({ path: 'internal/unlisted-helper', listed: false })
  unlisted(): McpSkillFiles {
    return {
      'SKILL.md':
        '---\nname: unlisted-helper\ndescription: A skill that skills/list leaves out; skills/get and reads still serve it.\n---\n# Unlisted\n',
    };
  }

  @McpSkill({ path: 'reports/daily-digest', resources: 'dynamic' })
  dailyDigest(): McpSkillFiles {
    this.reads++;
    return {
      'SKILL.md':
        '---\nname: daily-digest\ndescription: A skill whose files are produced at each read.\n---\n# Daily digest\n\nSee data/today.md.\n',
      'data/today.md': `Produced on read number ${this.reads}.\n`,
    };
  }
}
