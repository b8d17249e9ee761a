import { Injectable } from '@nestjs/common';
import { Subject } from 'rxjs';
import type { PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './registry-entries.interface.js';

/** Which list changed. */
export type McpListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/**
 * Everything the server exposes: filled by the explorer at bootstrap, and open to additions and removals at run
 * time. Lists are kept sorted by name (URI for resources) so that pages are deterministic.
 */
@Injectable()
export class McpRegistry {
  private readonly tools = new Map<string, ToolEntry>();
  private readonly prompts = new Map<string, PromptEntry>();
  private readonly resources = new Map<string, ResourceEntry>();
  private readonly templates = new Map<string, ResourceTemplateEntry>();
  private readonly sorted = new Map<McpListKind, readonly unknown[]>();
  private readonly changes = new Subject<McpListKind>();

  /** Emits the kind of list after every change (for list-changed notifications and caches). */
  readonly changes$ = this.changes.asObservable();

  /** Adds a tool; a duplicate name throws. */
  addTool(entry: ToolEntry): void {
    this.add(this.tools, entry.definition.name, entry, 'tools', 'tool');
  }

  /** Adds a prompt; a duplicate name throws. */
  addPrompt(entry: PromptEntry): void {
    this.add(this.prompts, entry.definition.name, entry, 'prompts', 'prompt');
  }

  /** Adds a static resource; a duplicate URI throws. */
  addResource(entry: ResourceEntry): void {
    this.add(this.resources, entry.definition.uri, entry, 'resources', 'resource');
  }

  /** Adds a resource template; a duplicate template throws. */
  addResourceTemplate(entry: ResourceTemplateEntry): void {
    this.add(this.templates, entry.definition.uriTemplate, entry, 'resourceTemplates', 'resource template');
  }

  /** Removes a tool by name; returns whether it existed. */
  removeTool(name: string): boolean {
    return this.remove(this.tools, name, 'tools');
  }

  /** Removes a prompt by name; returns whether it existed. */
  removePrompt(name: string): boolean {
    return this.remove(this.prompts, name, 'prompts');
  }

  /** Removes a static resource by URI; returns whether it existed. */
  removeResource(uri: string): boolean {
    return this.remove(this.resources, uri, 'resources');
  }

  /** Removes a resource template; returns whether it existed. */
  removeResourceTemplate(uriTemplate: string): boolean {
    return this.remove(this.templates, uriTemplate, 'resourceTemplates');
  }

  getTool(name: string): ToolEntry | undefined {
    return this.tools.get(name);
  }

  getPrompt(name: string): PromptEntry | undefined {
    return this.prompts.get(name);
  }

  getResource(uri: string): ResourceEntry | undefined {
    return this.resources.get(uri);
  }

  getResourceTemplate(uriTemplate: string): ResourceTemplateEntry | undefined {
    return this.templates.get(uriTemplate);
  }

  listTools(): readonly ToolEntry[] {
    return this.list('tools', this.tools);
  }

  listPrompts(): readonly PromptEntry[] {
    return this.list('prompts', this.prompts);
  }

  listResources(): readonly ResourceEntry[] {
    return this.list('resources', this.resources);
  }

  /** Templates, most specific first, so that the first match of a URI is the best one. */
  listResourceTemplates(): readonly ResourceTemplateEntry[] {
    return this.list('resourceTemplates', this.templates);
  }

  private add<T>(map: Map<string, T>, key: string, entry: T, kind: McpListKind, label: string): void {
    if (map.has(key)) {
      throw new Error(`nest-mcp: duplicate ${label} "${key}": each ${label} must be registered once`);
    }
    map.set(key, entry);
    this.changed(kind);
  }

  private remove<T>(map: Map<string, T>, key: string, kind: McpListKind): boolean {
    const existed = map.delete(key);
    if (existed) this.changed(kind);
    return existed;
  }

  private changed(kind: McpListKind): void {
    this.sorted.delete(kind);
    this.changes.next(kind);
  }

  private list<T>(kind: McpListKind, map: Map<string, T>): readonly T[] {
    let list = this.sorted.get(kind) as readonly T[] | undefined;
    if (!list) {
      const keys = [...map.keys()].sort(compareCodePoints);
      list = keys.map((key) => map.get(key) as T);
      if (kind === 'resourceTemplates') {
        list = [...(list as readonly ResourceTemplateEntry[])].sort(
          (a, b) => b.template.specificity - a.template.specificity,
        ) as unknown as readonly T[];
      }
      this.sorted.set(kind, list);
    }
    return list;
  }
}

/** Locale-independent ordering, so lists are identical on every machine. */
const compareCodePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
