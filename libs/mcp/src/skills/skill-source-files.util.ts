import type { McpSkillFiles } from './mcp-skill-files.interface.js';
import { McpSkillDefinitionError } from './skill-definition.error.js';
import type { SkillSourceFile } from './skill-source.interface.js';

const UTF8 = new TextEncoder();

/** A provider's files as source files (strings as UTF-8), each named `Class.method (path)` in errors. */
export function sourceFiles(where: string, files: McpSkillFiles): Map<string, SkillSourceFile> {
  if (typeof files !== 'object' || files === null) {
    throw new McpSkillDefinitionError(
      where,
      'must return the skill\'s files: { "SKILL.md": "...", "path/to/file": string | Uint8Array }',
    );
  }
  const result = new Map<string, SkillSourceFile>();
  for (const [path, content] of Object.entries(files)) {
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw new McpSkillDefinitionError(`${where} (${path})`, 'a file must be a string or bytes (Uint8Array)');
    }
    result.set(path, {
      bytes: typeof content === 'string' ? UTF8.encode(content) : content,
      where: `${where} (${path})`,
    });
  }
  return result;
}
