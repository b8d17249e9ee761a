/** One file in a skill's manifest (SEP-2640): its URI, `sha256:` digest and size in bytes. */
export interface McpSkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A `skills/list` or `skills/get` entry: the SKILL.md URI, its frontmatter as JSON, and its manifest. */
export interface McpSkillEntry {
  uri: string;
  frontmatter: Record<string, unknown> & { name: string; description: string };
  /** Every file of the skill, or `"dynamic"` for a skill whose content is produced at read time. */
  resources: McpSkillResource[] | 'dynamic';
  _meta?: Record<string, unknown>;
}

/** A child of a directory (`resources/directory/read`): a file, or a subdirectory (`mimeType: "inode/directory"`). */
export interface McpDirectoryEntry {
  uri: string;
  name: string;
  mimeType?: string;
  size?: number;
}
