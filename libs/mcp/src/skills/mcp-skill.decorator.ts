import { SetMetadata } from '@nestjs/common';
import { MCP_SKILL_METADATA } from './skills.constants.js';

/** Options of `@McpSkill`. */
export interface McpSkillOptions {
  /**
   * The skill path: optional organising segments, then the skill's name, which must equal the `name` in its
   * frontmatter (`ops/triage-incident` → `skill://ops/triage-incident/SKILL.md`).
   */
  path: string;
  /** On a class: the directory holding the skill (its `SKILL.md` and supporting files), read once at bootstrap. */
  directory?: string;
  /**
   * On a method: `'dynamic'` calls the method at each listing, `skills/get`, read and directory read, and lists the
   * skill with `resources: "dynamic"` (no digests: hosts may refuse it). Default: the method is called once, at
   * bootstrap, and its files are served as a snapshot with digests.
   */
  resources?: 'dynamic';
  /** Listed in `skills/list` and `resources/list`; false: reachable only by URI (`skills/get`, reads). Default true. */
  listed?: boolean;
  /** OAuth scopes a caller needs to see and read the skill, on top of any `@McpScopes` on the class or method. */
  scopes?: string[];
}

/**
 * Declares a skill (SEP-2640) served as `skill://<path>/…` resources, in `skills/list` and by `skills/get`.
 *
 * - On a method: the method returns the skill's files (`McpSkillFiles`, maybe as a promise): once at bootstrap, or at
 *   every access with `resources: 'dynamic'`. It is a plain call: guards and interceptors do not run around it (use
 *   `scopes` or the `visibility` hook to restrict a skill).
 * - On a class: `directory` names a folder holding the skill.
 *
 * @example
 * ```ts
 * @McpSkill({ path: 'ops/rollback' })
 * rollback(): McpSkillFiles {
 *   return { 'SKILL.md': '---\nname: rollback\ndescription: Roll a release back\n---\n…' };
 * }
 * ```
 */
export const McpSkill = (options: McpSkillOptions): ClassDecorator & MethodDecorator =>
  SetMetadata(MCP_SKILL_METADATA, options);
