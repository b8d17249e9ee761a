import type { AccessControlled } from '../discovery/registry-entries.interface.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpHandlerSummary } from '../protocol/mcp-caller.interface.js';
import { SKILL_FILE } from './skills.constants.js';
import type { SkillFile } from './skill-file.js';
import { skillUri } from './skill-path.util.js';

/** The files of a skill at one instant, with the frontmatter of its SKILL.md. */
export interface SkillSnapshot {
  readonly frontmatter: JsonObject;
  /** Every file of the skill (nested skills' files included), SKILL.md first, then by path. */
  readonly files: readonly SkillFile[];
  /** The same files by URI. */
  readonly byUri: ReadonlyMap<string, SkillFile>;
}

/**
 * A skill this server serves: its path, name and URIs, who may see it, and where its files come from — a snapshot
 * taken at bootstrap (`static`: listing, `skills/get` and reads describe the same bytes until the process restarts) or
 * a provider called at each access (`dynamic`: `resources: "dynamic"`, no digests).
 */
export abstract class ServedSkill implements AccessControlled {
  /** The URI of its SKILL.md: the skill's identity. */
  readonly uri: string;
  /** The URI of its root directory (`skill://<skill-path>`). */
  readonly rootUri: string;

  protected constructor(
    /** `<prefix>/<name>`, e.g. `ops/triage-incident`. */
    readonly path: string,
    /** The frontmatter `name` (the last segment of `path`). */
    readonly name: string,
    /** Listed in `skills/list` and `resources/list`. */
    readonly listed: boolean,
    /** How the access policy sees it: the SKILL.md resource (one object for every file of the skill). */
    readonly summary: McpHandlerSummary,
    /** What declared it, for log and error messages. */
    readonly where: string,
  ) {
    this.uri = skillUri(path, SKILL_FILE);
    this.rootUri = skillUri(path);
  }

  abstract readonly dynamic: boolean;

  /** Its files now. */
  abstract snapshot(): Promise<SkillSnapshot>;

  /** Its `skills/list` / `skills/get` entry now (SEP-2640, "Skill Entries"). */
  abstract entry(): Promise<JsonObject>;
}

/** A skill whose bytes were read once at bootstrap and are served unchanged. */
export class StaticSkill extends ServedSkill {
  readonly dynamic = false;
  private readonly current: Promise<SkillSnapshot>;
  private readonly listing: Promise<JsonObject>;

  constructor(
    path: string,
    name: string,
    listed: boolean,
    summary: McpHandlerSummary,
    where: string,
    readonly fixed: SkillSnapshot,
  ) {
    super(path, name, listed, summary, where);
    this.current = Promise.resolve(fixed);
    const resources = fixed.files.map((file) => ({ uri: file.uri, digest: file.digest, size: file.size }));
    this.listing = Promise.resolve(
      Object.freeze({ uri: this.uri, frontmatter: fixed.frontmatter, resources }) as JsonObject,
    );
  }

  snapshot(): Promise<SkillSnapshot> {
    return this.current;
  }

  entry(): Promise<JsonObject> {
    return this.listing;
  }
}

/** A skill produced by its provider at each access: listed with `resources: "dynamic"`. */
export class DynamicSkill extends ServedSkill {
  readonly dynamic = true;

  constructor(
    path: string,
    name: string,
    listed: boolean,
    summary: McpHandlerSummary,
    where: string,
    private readonly produce: () => Promise<SkillSnapshot>,
  ) {
    super(path, name, listed, summary, where);
  }

  snapshot(): Promise<SkillSnapshot> {
    return this.produce();
  }

  async entry(): Promise<JsonObject> {
    const { frontmatter } = await this.produce();
    return { uri: this.uri, frontmatter, resources: 'dynamic' };
  }
}
