import { Injectable } from '@nestjs/common';
import { McpScopes, McpSkill, type McpSkillFiles } from 'nest-mcp';

// #region docs:method-skill
@Injectable()
export class ReleaseSkills {
  /** Called once at bootstrap: the files are served as a snapshot, with digests. */
  @McpSkill({ path: 'ops/rollback' })
  rollback(): McpSkillFiles {
    return {
      'SKILL.md': [
        '---',
        'name: rollback',
        'description: Roll a release back safely. Use when a deploy broke a service.',
        '---',
        '# Rollback',
        'Follow [the checklist](references/CHECKLIST.md).',
      ].join('\n'),
      'references/CHECKLIST.md': '- freeze deploys\n- deploy the previous version\n- watch the logs\n',
    };
  }
}
// #endregion docs:method-skill

// #region docs:class-skill
/** A skill kept in a folder of its own (its SKILL.md at the root), restricted to tokens with `ops:write`. */
@McpSkill({ path: 'ops/hotfix', directory: 'skills-src/hotfix' })
@McpScopes('ops:write')
@Injectable()
export class HotfixSkill {}
// #endregion docs:class-skill

// #region docs:dynamic-skill
@Injectable()
export class OnCallSkill {
  private readonly roster = { current: () => 'alice' };

  /** Called at every listing, skills/get and read: listed with `resources: "dynamic"` (no digests). */
  @McpSkill({ path: 'ops/who-is-on-call', resources: 'dynamic' })
  onCall(): McpSkillFiles {
    return {
      'SKILL.md': '---\nname: who-is-on-call\ndescription: Who to page right now.\n---\nRead roster.md.\n',
      'roster.md': `On call now: ${this.roster.current()}\n`,
    };
  }
}
// #endregion docs:dynamic-skill
