/**
 * The files of a skill, by path below its root (`/`-separated): `SKILL.md` at least, plus any supporting files
 * (`references/GUIDE.md`, `scripts/check.sh`…). A string is served as UTF-8 text; bytes (`Buffer`, `Uint8Array`) are
 * served as text when they are valid UTF-8 of a textual type, otherwise as a base64 `blob`. A `SKILL.md` below the
 * root is a nested skill (its files also belong to the enclosing skill), except in a dynamic skill.
 *
 * @example
 * ```ts
 * { 'SKILL.md': '---\nname: rollback\ndescription: Roll a release back safely\n---\n# Rollback\n…',
 *   'references/CHECKLIST.md': '- [ ] freeze deploys\n…' }
 * ```
 */
export type McpSkillFiles = Readonly<Record<string, string | Uint8Array>>;
