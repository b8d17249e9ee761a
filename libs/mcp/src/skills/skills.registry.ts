import { Injectable, Logger } from '@nestjs/common';
import type { McpHandler } from '../context/mcp-handler.interface.js';
import type { McpResourceContext } from '../context/mcp-resource.context.js';
import { McpEntryFactory } from '../discovery/mcp-entry.factory.js';
import { McpRegistry } from '../discovery/mcp.registry.js';
import { checkScopes } from '../discovery/scopes.util.js';
import type { McpHandlerSummary } from '../protocol/mcp-caller.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { UriTemplate } from '../protocol/uri-template.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { DynamicSkill, type ServedSkill, type SkillSnapshot, StaticSkill } from './served-skill.js';
import { McpSkillDefinitionError } from './skill-definition.error.js';
import { SkillDirectoryTree } from './skill-directory.tree.js';
import { lastSegment, skillUri } from './skill-path.util.js';
import { snapshotSkill } from './skill-snapshot.factory.js';
import type { SkillSource, SkillSourceFile } from './skill-source.interface.js';
import { sourceFiles } from './skill-source-files.util.js';
import { SKILL_FILE, SKILL_MIME_TYPE } from './skills.constants.js';

/**
 * Every skill this server serves, and their `skill://` resources in `McpRegistry`: each listed skill's `SKILL.md` as a
 * static resource (in `resources/list`, `text/markdown`, named and described by its frontmatter) and, for every skill,
 * a template `skill://<skill-path>/{+file}` that reads any of its files. Both carry the skill's one access summary
 * (kind `resource`, the SKILL.md URI, its scopes), so the access policy treats every file of a skill alike.
 *
 * Filled once at bootstrap by `McpSkillsExplorer`.
 */
@Injectable()
export class McpSkills {
  private readonly logger = new Logger('McpSkills');
  private skills: readonly ServedSkill[] = [];
  private listedSkills: readonly ServedSkill[] = [];
  private readonly byUri = new Map<string, ServedSkill>();
  private tree = new SkillDirectoryTree();

  constructor(
    private readonly registry: McpRegistry,
    private readonly options: McpResolvedOptions,
  ) {}

  /** Whether the extension is advertised: the `skills` option is set, or some skill is declared. */
  get advertised(): boolean {
    return this.options.skills.declared || this.skills.length > 0;
  }

  /** Every skill, listed or not, by path. */
  all(): readonly ServedSkill[] {
    return this.skills;
  }

  /** The listed skills, by path (the same array until skills are added, so it may key caches). */
  listed(): readonly ServedSkill[] {
    return this.listedSkills;
  }

  /** The skill whose SKILL.md has this URI. */
  get(uri: string): ServedSkill | undefined {
    return this.byUri.get(uri);
  }

  /** The dynamic skill `uri` lies in (its root or below), if any. */
  dynamicAt(uri: string): ServedSkill | undefined {
    return this.skills.find((skill) => skill.dynamic && (uri === skill.rootUri || uri.startsWith(`${skill.rootUri}/`)));
  }

  /** The directory tree of the skills read at bootstrap (dynamic skills appear only as their root). */
  directories(): SkillDirectoryTree {
    return this.tree;
  }

  /**
   * Builds the skills of `sources`, checks them (`McpSkillDefinitionError` naming the file on a MUST; warnings for
   * SHOULDs) and registers their resources. Two sources may not serve the same skill path or nest one in the other.
   */
  async add(sources: readonly SkillSource[]): Promise<void> {
    // For a dynamic skill, `snapshot` is what its provider gave at bootstrap: only its description is kept.
    const built: { skill: ServedSkill; snapshot: SkillSnapshot; source: SkillSource }[] = [];
    for (const source of sources) {
      if (source.kind === 'static') {
        for (const skill of this.staticSkills(source)) built.push({ ...skill, source });
      } else {
        built.push({ ...(await this.dynamicSkill(source)), source });
      }
    }
    const all = [...this.skills.map((skill) => ({ skill, source: undefined as SkillSource | undefined })), ...built];
    for (const a of all) {
      for (const b of all) {
        if (a === b || a.source === b.source) continue;
        if (a.skill.path === b.skill.path || b.skill.path.startsWith(`${a.skill.path}/`)) {
          throw new McpSkillDefinitionError(
            b.skill.where,
            `the skill "${b.skill.path}" is inside or the same as "${a.skill.path}" (${a.skill.where}); declare nested skills inside the enclosing skill's own files`,
          );
        }
      }
    }
    for (const { skill, snapshot } of built) {
      this.register(skill, snapshot);
      this.byUri.set(skill.uri, skill);
      this.tree.add(skill, skill.dynamic ? undefined : snapshot);
    }
    this.skills = [...this.skills, ...built.map(({ skill }) => skill)].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    );
    this.listedSkills = this.skills.filter((skill) => skill.listed);
    this.warnDuplicateNames();
  }

  /** The skills of a static source: one per SKILL.md, each with every file below its folder (nested skills' too). */
  private staticSkills(
    source: Extract<SkillSource, { kind: 'static' }>,
  ): { skill: ServedSkill; snapshot: SkillSnapshot }[] {
    const folders = [...source.files.keys()]
      .filter((path) => path === SKILL_FILE || path.endsWith(`/${SKILL_FILE}`))
      .map((path) => path.slice(0, -SKILL_FILE.length).replace(/\/$/, ''));
    if (source.rooted && !folders.includes('')) {
      throw new McpSkillDefinitionError(source.where, `the skill "${source.base}" has no ${SKILL_FILE} at its root`);
    }
    if (!source.rooted && source.base === '' && folders.includes('')) {
      throw new McpSkillDefinitionError(
        source.files.get(SKILL_FILE)!.where,
        `a ${SKILL_FILE} at the top of a skills root: put each skill in a folder named after it, or give the root a prefix`,
      );
    }
    return folders.map((folder) => {
      const files = new Map<string, SkillSourceFile>();
      for (const [path, file] of source.files) {
        if (folder === '') files.set(path, file);
        else if (path.startsWith(`${folder}/`)) files.set(path.slice(folder.length + 1), file);
      }
      const path = [source.base, folder].filter(Boolean).join('/');
      const skillMd = files.get(SKILL_FILE)!.where;
      const snapshot = snapshotSkill(path, skillMd, files, this.logger);
      const name = lastSegment(path);
      return {
        skill: new StaticSkill(
          path,
          name,
          source.listed,
          this.summary(skillMd, path, name, source.scopes),
          skillMd,
          snapshot,
        ),
        snapshot,
      };
    });
  }

  /** A dynamic skill, checked once now (its provider runs, and what it gives must be a valid skill). */
  private async dynamicSkill(
    source: Extract<SkillSource, { kind: 'dynamic' }>,
  ): Promise<{ skill: ServedSkill; snapshot: SkillSnapshot }> {
    const { base: path, where } = source;
    const produce = async (logger?: Logger): Promise<SkillSnapshot> => {
      const files = await source.produce();
      return snapshotSkill(path, where, sourceFiles(where, files), logger);
    };
    const snapshot = await produce(this.logger).catch((error: unknown) => {
      if (error instanceof McpSkillDefinitionError) throw error;
      throw new McpSkillDefinitionError(
        where,
        `the dynamic skill's provider failed: ${(error as Error)?.message ?? String(error)}`,
      );
    });
    const name = lastSegment(path);
    const skill = new DynamicSkill(
      path,
      name,
      source.listed,
      this.summary(where, path, name, source.scopes),
      where,
      () =>
        produce().catch((error: unknown) => {
          this.logger.error(`The dynamic skill "${path}" (${where}) failed`, (error as Error)?.stack ?? String(error));
          throw McpError.internal();
        }),
    );
    return { skill, snapshot };
  }

  /** The one access summary of a skill: its SKILL.md resource, named by the skill, with its scopes. */
  private summary(where: string, path: string, name: string, scopes: readonly string[]): McpHandlerSummary {
    let checked: readonly string[];
    try {
      checked = checkScopes(where, scopes);
    } catch (error) {
      throw new McpSkillDefinitionError(where, (error as Error).message.replace(/^nest-mcp: [^:]+: /, ''));
    }
    const uri = skillUri(path, SKILL_FILE);
    return Object.freeze({ kind: 'resource', name, uri, scopes: checked });
  }

  /** Adds the skill's resources to the registry: its SKILL.md when listed, and the template of its files. */
  private register(skill: ServedSkill, snapshot: SkillSnapshot): void {
    const read: McpHandler = {
      invoke: async (_input, context) => this.read(skill, (context as McpResourceContext).uri),
    };
    if (skill.listed) {
      const description = snapshot.frontmatter.description as string;
      const size = skill.dynamic ? undefined : snapshot.files[0].size;
      const options = {
        uri: skill.uri,
        name: skill.name,
        description,
        mimeType: SKILL_MIME_TYPE,
        ...(size !== undefined && { size }),
      };
      const entry = McpEntryFactory.resource(skill.where, options, read);
      this.registry.addResource({ ...entry, summary: skill.summary });
    }
    const uriTemplate = `${skill.rootUri}/{+file}`;
    const template = McpEntryFactory.resourceTemplate(
      skill.where,
      { uriTemplate, name: `${skill.name} files`, description: `Any file of the skill ${skill.path}` },
      read,
    );
    this.registry.addResourceTemplate({ ...template, template: new UriTemplate(uriTemplate), summary: skill.summary });
  }

  /** `resources/read` of one of the skill's files, from its snapshot. */
  private async read(skill: ServedSkill, uri: string) {
    const file = (await skill.snapshot()).byUri.get(uri);
    if (!file) throw McpError.resourceNotFound(uri);
    return file.contents();
  }

  private warnDuplicateNames(): void {
    const seen = new Map<string, string>();
    for (const skill of this.listedSkills) {
      const other = seen.get(skill.name);
      if (other)
        this.logger.warn(
          `Two listed skills are named "${skill.name}" (${other} and ${skill.uri}); names SHOULD be unique`,
        );
      seen.set(skill.name, skill.uri);
    }
  }
}
