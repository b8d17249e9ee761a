import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { McpSkillDefinitionError } from './skill-definition.error.js';
import type { SkillSourceFile } from './skill-source.interface.js';

/** Most files read below one directory: a guard against pointing a root at a whole disk by mistake. */
const MAX_FILES = 20_000;

/**
 * Reads every file below `directory` into memory, by path relative to it (`/`-separated): the snapshot skills are
 * served from. Names starting with `.` (`.git`, `.DS_Store`) are skipped. A symbolic link is followed only when its
 * target stays inside `directory`; one that leads out fails, naming the link (a skill must not serve files from
 * elsewhere on the machine).
 */
export async function readSkillDirectory(directory: string): Promise<Map<string, SkillSourceFile>> {
  let root: string;
  try {
    root = await realpath(directory);
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw new McpSkillDefinitionError(directory, `cannot read the skills directory (${(error as Error).message})`);
  }
  const files = new Map<string, SkillSourceFile>();
  // Real paths of the directories walked: a link back to a parent would otherwise be walked forever.
  const walked = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    const real = await realpath(dir);
    if (walked.has(real)) throw new McpSkillDefinitionError(dir, 'is reached twice through symbolic links');
    walked.add(real);
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      let target = path;
      let isDirectory = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        target = await realpath(path).catch(() => '');
        if (!target || (target !== root && !target.startsWith(root + sep))) {
          throw new McpSkillDefinitionError(path, 'is a symbolic link that leads outside the skills directory');
        }
        isDirectory = (await stat(target)).isDirectory();
      } else if (!isDirectory && !entry.isFile()) {
        continue;
      }
      if (isDirectory) {
        await walk(path);
        continue;
      }
      if (files.size >= MAX_FILES) {
        throw new McpSkillDefinitionError(
          directory,
          `holds more than ${MAX_FILES} files; point the skills root at the skills themselves`,
        );
      }
      files.set(relative(directory, path).split(sep).join('/'), { bytes: await readFile(target), where: path });
    }
  };
  await walk(directory);
  return files;
}
