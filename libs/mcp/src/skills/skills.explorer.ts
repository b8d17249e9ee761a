import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { McpMetadataAccessor } from '../discovery/mcp-metadata.accessor.js';
import type { McpSkillFiles } from './mcp-skill-files.interface.js';
import type { McpSkillOptions } from './mcp-skill.decorator.js';
import { McpSkillDefinitionError } from './skill-definition.error.js';
import { readSkillDirectory } from './skill-directory.reader.js';
import { McpSkillMetadataAccessor } from './skill-metadata.accessor.js';
import type { SkillSource } from './skill-source.interface.js';
import { sourceFiles } from './skill-source-files.util.js';
import { pathProblem } from './skill-path.util.js';
import { McpSkills } from './skills.registry.js';

/**
 * Finds the skills at bootstrap: the `skills.roots` directories, classes with `@McpSkill({ directory })` and methods
 * with `@McpSkill`, and hands them to `McpSkills`. Any MUST violation fails bootstrap naming the file or declaration.
 */
@Injectable()
export class McpSkillsExplorer implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpSkills');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpSkillMetadataAccessor,
    private readonly metadata: McpMetadataAccessor,
    private readonly skills: McpSkills,
    private readonly options: McpResolvedOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const sources: SkillSource[] = [];
    for (const root of this.options.skills.roots) {
      if (root.prefix && pathProblem(root.prefix)) {
        throw new McpSkillDefinitionError(root.directory, `the prefix "${root.prefix}" ${pathProblem(root.prefix)}`);
      }
      const files = await readSkillDirectory(root.directory);
      sources.push({
        kind: 'static',
        where: root.directory,
        base: root.prefix,
        files,
        rooted: false,
        scopes: root.scopes,
        listed: root.listed,
      });
    }
    sources.push(...(await this.decorated()));
    await this.skills.add(sources);
    if (this.skills.all().length > 0)
      this.logger.log(`Serving ${this.skills.all().length} skills (${this.skills.listed().length} listed)`);
  }

  private async decorated(): Promise<SkillSource[]> {
    const sources: SkillSource[] = [];
    const seen = new Set<object>();
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      const instance = wrapper.instance as object | undefined;
      if (!instance || typeof instance !== 'object' || seen.has(instance)) continue;
      seen.add(instance);
      const type = instance.constructor;
      const onClass = this.accessor.getSkillOptions(type);
      if (onClass) sources.push(await this.classSkill(type, onClass));
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = (instance as Record<string, (...args: unknown[]) => unknown>)[methodName];
        const options = this.accessor.getSkillOptions(method);
        if (options) sources.push(await this.methodSkill(instance, methodName, method, options));
      }
    }
    return sources;
  }

  private async classSkill(type: Function, options: McpSkillOptions): Promise<SkillSource> {
    const where = type.name;
    const path = checkPath(where, options);
    if (typeof options.directory !== 'string') {
      throw new McpSkillDefinitionError(
        where,
        '@McpSkill on a class needs `directory` (the folder holding the skill); put it on a method to return the files instead',
      );
    }
    if (options.resources !== undefined)
      throw new McpSkillDefinitionError(where, "`resources: 'dynamic'` is for @McpSkill on a method");
    const files = await readSkillDirectory(options.directory);
    const scopes = [...this.metadata.getScopes(noMethod, type), ...(options.scopes ?? [])];
    return {
      kind: 'static',
      where: options.directory,
      base: path,
      files,
      rooted: true,
      scopes,
      listed: options.listed ?? true,
    };
  }

  private async methodSkill(
    instance: object,
    methodName: string,
    method: (...args: unknown[]) => unknown,
    options: McpSkillOptions,
  ): Promise<SkillSource> {
    const where = `${instance.constructor.name}.${methodName}`;
    const path = checkPath(where, options);
    if (options.directory !== undefined)
      throw new McpSkillDefinitionError(where, '`directory` is for @McpSkill on a class');
    if (options.resources !== undefined && options.resources !== 'dynamic') {
      throw new McpSkillDefinitionError(where, "`resources` may only be 'dynamic'");
    }
    const scopes = [...this.metadata.getScopes(method, instance.constructor), ...(options.scopes ?? [])];
    const listed = options.listed ?? true;
    const produce = async (): Promise<McpSkillFiles> => (await method.call(instance)) as McpSkillFiles;
    if (options.resources === 'dynamic') return { kind: 'dynamic', where, base: path, produce, scopes, listed };
    let files: McpSkillFiles;
    try {
      files = await produce();
    } catch (error) {
      throw new McpSkillDefinitionError(
        where,
        `failed to produce the skill's files: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    return { kind: 'static', where, base: path, files: sourceFiles(where, files), rooted: true, scopes, listed };
  }
}

/** Stands for "no method" when reading class-level `@McpScopes`. */
const noMethod = (): void => undefined;

function checkPath(where: string, options: McpSkillOptions): string {
  const problem = pathProblem(options?.path);
  if (problem) throw new McpSkillDefinitionError(where, `@McpSkill path "${String(options?.path)}" ${problem}`);
  return options.path;
}
