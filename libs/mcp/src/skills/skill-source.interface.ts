import type { McpSkillFiles } from './mcp-skill-files.interface.js';

/** One file of a skill source before it is served: its bytes, and where it came from for error messages. */
export interface SkillSourceFile {
  readonly bytes: Uint8Array;
  /** The absolute path on disk, or `Class.method (path)`: what an error names. */
  readonly where: string;
}

/** Which callers may see the skills of a source, and whether they are listed. */
export interface SkillSourceAccess {
  /** OAuth scopes a caller needs to see and read them (empty: none). */
  readonly scopes: readonly string[];
  /** Listed in `skills/list` and `resources/list` (false: reachable only by URI, `skills/get` and reads). */
  readonly listed: boolean;
}

/**
 * Skills declared in one place, before they are checked: a root directory's walk or a provider's file set
 * (`static`), whose SKILL.md files each start a skill, or one provider skill built at read time (`dynamic`).
 */
export type SkillSource =
  | (SkillSourceAccess & {
      readonly kind: 'static';
      /** What declared it: the root directory, or `Class.method`. */
      readonly where: string;
      /** The skill path the file paths are relative to (`''` for a root directory without prefix). */
      readonly base: string;
      /** Files by path below `base`. */
      readonly files: ReadonlyMap<string, SkillSourceFile>;
      /** A provider's file set must have its SKILL.md right at `base`; a root directory may hold skills anywhere. */
      readonly rooted: boolean;
    })
  | (SkillSourceAccess & {
      readonly kind: 'dynamic';
      readonly where: string;
      /** The skill path. */
      readonly base: string;
      /** Produces the skill's files, on every listing, `skills/get`, read and directory read. */
      readonly produce: () => Promise<McpSkillFiles>;
    });
