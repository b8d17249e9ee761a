import type { Logger } from '@nestjs/common';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import { McpSkillDefinitionError } from './skill-definition.error.js';
import { SkillFile } from './skill-file.js';
import { readSkillFrontmatter, stripBom } from './skill-frontmatter.util.js';
import { isRegName, lastSegment, pathProblem, skillUri } from './skill-path.util.js';
import type { SkillSourceFile } from './skill-source.interface.js';
import type { SkillSnapshot } from './served-skill.js';
import {
  MAX_SKILL_DESCRIPTION,
  RESERVED_METADATA_PREFIX,
  SKILL_FILE,
  SKILL_LIMITS,
  SKILL_NAME,
} from './skills.constants.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks one skill's files and takes their snapshot: the MUSTs of SEP-2640 and the Agent Skills format throw
 * `McpSkillDefinitionError` naming the file (SKILL.md missing, not UTF-8, without frontmatter, without a valid `name`
 * or `description`, a name that is not the last segment of the skill path, a bad path); the SHOULDs are logged as
 * warnings when a logger is given (more than 512 files or 16 MiB, a reserved `metadata` key, an authority that is not
 * a reg-name).
 *
 * `files` are by path below the skill root; a BOM at the start of the SKILL.md is dropped before anything is hashed
 * or served, so digests, sizes and the served text all describe the same bytes.
 */
export function snapshotSkill(
  skillPath: string,
  where: string,
  files: ReadonlyMap<string, SkillSourceFile>,
  logger?: Logger,
): SkillSnapshot {
  const problem = pathProblem(skillPath);
  if (problem) throw new McpSkillDefinitionError(where, `the skill path "${skillPath}" ${problem}`);
  const skillMd = files.get(SKILL_FILE);
  if (!skillMd) throw new McpSkillDefinitionError(where, `the skill "${skillPath}" has no ${SKILL_FILE} at its root`);
  const snapshot: SkillFile[] = [];
  for (const [path, file] of files) {
    const pathIssue = pathProblem(path);
    if (pathIssue) throw new McpSkillDefinitionError(file.where, `the file path "${path}" ${pathIssue}`);
    // Every SKILL.md loses its BOM, nested ones too: the enclosing skill's manifest must list the same bytes.
    const bytes = path === SKILL_FILE || path.endsWith(`/${SKILL_FILE}`) ? stripBom(file.bytes) : file.bytes;
    snapshot.push(new SkillFile(path, skillUri(skillPath, path), bytes));
  }
  snapshot.sort((a, b) =>
    a.path === SKILL_FILE ? -1 : b.path === SKILL_FILE ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  const frontmatter = checkSkillMd(skillPath, skillMd.where, snapshot[0].bytes);
  if (logger) warnShoulds(skillPath, skillMd.where, frontmatter, snapshot, logger);
  return { frontmatter, files: snapshot, byUri: new Map(snapshot.map((file) => [file.uri, file])) };
}

/** The frontmatter of a SKILL.md, checked against the MUSTs; throws naming `where`. */
function checkSkillMd(skillPath: string, where: string, bytes: Uint8Array): JsonObject {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new McpSkillDefinitionError(where, `${SKILL_FILE} is not valid UTF-8`);
  }
  const read = readSkillFrontmatter(text);
  if (!read.ok) throw new McpSkillDefinitionError(where, `${SKILL_FILE} ${read.problem}`);
  const { name, description } = read.frontmatter;
  if (typeof name !== 'string' || name.length === 0) {
    throw new McpSkillDefinitionError(where, 'the frontmatter needs a non-empty string "name"');
  }
  if (!SKILL_NAME.test(name)) {
    throw new McpSkillDefinitionError(
      where,
      `the name "${name}" must be 1-64 characters of lowercase letters, digits and "-", without a leading, trailing or doubled "-"`,
    );
  }
  if (typeof description !== 'string' || description.length === 0) {
    throw new McpSkillDefinitionError(where, 'the frontmatter needs a non-empty string "description"');
  }
  if ([...description].length > MAX_SKILL_DESCRIPTION) {
    throw new McpSkillDefinitionError(where, `the description is longer than ${MAX_SKILL_DESCRIPTION} characters`);
  }
  if (lastSegment(skillPath) !== name) {
    throw new McpSkillDefinitionError(
      where,
      `the skill path "${skillPath}" must end with the skill's name "${name}" (rename the directory or the name)`,
    );
  }
  return read.frontmatter;
}

function warnShoulds(
  skillPath: string,
  where: string,
  frontmatter: JsonObject,
  files: readonly SkillFile[],
  logger: Logger,
): void {
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  if (files.length > SKILL_LIMITS.maxResources) {
    logger.warn(
      `${where}: the skill "${skillPath}" has ${files.length} files; hosts may refuse more than ${SKILL_LIMITS.maxResources}`,
    );
  }
  if (bytes > SKILL_LIMITS.maxBytes) {
    logger.warn(
      `${where}: the skill "${skillPath}" holds ${bytes} bytes; hosts may refuse more than ${SKILL_LIMITS.maxBytes}`,
    );
  }
  const metadata = frontmatter.metadata;
  if (
    typeof metadata === 'object' &&
    metadata !== null &&
    Object.keys(metadata).some((key) => key.startsWith(RESERVED_METADATA_PREFIX))
  ) {
    logger.warn(
      `${where}: frontmatter metadata keys starting with "${RESERVED_METADATA_PREFIX}" are reserved for MCP extensions`,
    );
  }
  if (!isRegName(skillPath)) {
    logger.warn(`${where}: the first segment of the skill path "${skillPath}" is not a valid URI authority (reg-name)`);
  }
}
