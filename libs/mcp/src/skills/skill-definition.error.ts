/**
 * A skill breaks a MUST of SEP-2640 or of the Agent Skills format (no frontmatter, a bad name, a path that does not
 * end with the name…): thrown at bootstrap, naming the file or the declaration, so that a server never serves a skill
 * hosts would refuse.
 */
export class McpSkillDefinitionError extends Error {
  constructor(
    /** The file (absolute path or `skill://` URI) or the declaration (`Class.method`) at fault. */
    readonly where: string,
    problem: string,
  ) {
    super(`nest-mcp skills: ${where}: ${problem}`);
    this.name = 'McpSkillDefinitionError';
  }
}
