import { DIRECTORY_MIME_TYPE } from './skills.constants.js';
import type { SkillFile } from './skill-file.js';
import { skillUri } from './skill-path.util.js';
import type { ServedSkill, SkillSnapshot } from './served-skill.js';

/** One entry of a directory: a file of a skill or a subdirectory, with the skills it belongs to. */
export interface SkillDirectoryChild {
  readonly uri: string;
  /** Its last path segment, as on disk. */
  readonly name: string;
  /** Set for a file; undefined for a subdirectory. */
  readonly file?: SkillFile;
  /** The skills that hold it (a caller sees it when it may see one of them). */
  readonly owners: Set<ServedSkill>;
}

/** A directory of the skill namespace: a prefix directory above skills, a skill root, or a folder inside a skill. */
export interface SkillDirectory {
  readonly uri: string;
  readonly owners: Set<ServedSkill>;
  readonly children: Map<string, SkillDirectoryChild>;
}

/**
 * The directory tree of the `skill://` namespace (`resources/directory/read`, SEP-2640 "Directory Listing"): every
 * directory level of the skills served as files (the skill roots and their subfolders) and the prefix directories
 * above them. Each entry records the skills it belongs to, so a caller sees only what belongs to skills it may see.
 */
export class SkillDirectoryTree {
  private readonly directories = new Map<string, SkillDirectory>();

  /** The directory at `uri`, if it is one. */
  get(uri: string): SkillDirectory | undefined {
    return this.directories.get(uri);
  }

  /** Adds a skill: the prefix directories above it, its root, and (given its snapshot) its files and folders. */
  add(skill: ServedSkill, snapshot?: SkillSnapshot): void {
    const segments = skill.path.split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      const parent = segments.slice(0, depth).join('/');
      this.link(skillUri(parent), skillUri(`${parent}/${segments[depth]}`), segments[depth], skill);
    }
    this.directory(skill.rootUri, skill);
    for (const file of snapshot?.files ?? []) {
      const parts = file.path.split('/');
      let at = skill.rootUri;
      for (let depth = 0; depth < parts.length - 1; depth++) {
        const next = skillUri(skill.path, parts.slice(0, depth + 1).join('/'));
        this.link(at, next, parts[depth], skill);
        at = next;
      }
      this.link(at, file.uri, parts[parts.length - 1], skill, file);
    }
  }

  /** The `resources/directory/read` entry of a child. */
  static resourceOf(child: SkillDirectoryChild): Record<string, unknown> {
    if (!child.file) return { uri: child.uri, name: child.name, mimeType: DIRECTORY_MIME_TYPE };
    return { uri: child.uri, name: child.name, mimeType: child.file.mimeType, size: child.file.size };
  }

  private directory(uri: string, owner: ServedSkill): SkillDirectory {
    let directory = this.directories.get(uri);
    if (!directory) {
      directory = { uri, owners: new Set(), children: new Map() };
      this.directories.set(uri, directory);
    }
    directory.owners.add(owner);
    return directory;
  }

  private link(parentUri: string, uri: string, name: string, owner: ServedSkill, file?: SkillFile): void {
    const parent = this.directory(parentUri, owner);
    if (!file) this.directory(uri, owner);
    let child = parent.children.get(uri);
    if (!child) {
      child = { uri, name, file, owners: new Set() };
      parent.children.set(uri, child);
    }
    child.owners.add(owner);
  }
}
