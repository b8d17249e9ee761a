import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import type { JsonObject } from '../protocol/json-rpc.interface.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import { McpAccessPolicy } from '../server/access.policy.js';
import { CursorCodec } from '../server/cursor.codec.js';
import type { McpRoute } from '../server/mcp-route.interface.js';
import { requireString } from '../server/params.util.js';
import type { McpExtension } from '../server/extension.interface.js';
import type { ServedSkill } from './served-skill.js';
import { SkillDirectoryTree } from './skill-directory.tree.js';
import { McpSkills } from './skills.registry.js';
import { SKILLS_EXTENSION } from './skills.constants.js';
import { echoed } from '../protocol/echo.util.js';

/**
 * The skills extension (SEP-2640) as the server sees it (`McpExtension`): advertised once a skill is served (with
 * `directoryRead: true` under `skills.directoryRead`), requiring `resources`; its methods `skills/list`, `skills/get`
 * and, with `skills.directoryRead`, `resources/directory/read`. They exist while the extension is advertised and are
 * served whatever the client declared (hosts and checkers call them without declaring anything); none carries
 * `Mcp-Name`. Served on both wires with the same routes (`legacy`), declared in a 2025-11-25 `initialize`
 * (SEP-2640, "Capability Declaration"). Results get `resultType` from the 2026 wire; there they carry `ttlMs` and
 * `cacheScope` (the 2025-11-25 wire drops both), `"private"` whenever callers see different skills.
 *
 * Access: a skill is seen by a caller when the access policy lets it see the skill's SKILL.md resource (scopes, the
 * `visibility` hook); `skills/get` of a hidden skill answers as for an unknown one, of one whose scopes the caller's
 * token lacks with 403 `insufficient_scope`, exactly as `resources/read` does.
 */
@Injectable()
export class McpSkillMethods implements McpExtension {
  readonly id = SKILLS_EXTENSION;
  readonly legacy = {};

  constructor(
    private readonly skills: McpSkills,
    private readonly access: McpAccessPolicy,
    private readonly options: McpResolvedOptions,
  ) {}

  routes(): Iterable<readonly [string, McpRoute]> {
    const route = (handle: McpRoute['handle']): McpRoute => ({
      extension: SKILLS_EXTENSION,
      handle,
      delivery: 'response',
      cancellableByDisconnect: true,
    });
    const routes: [string, McpRoute][] = [
      ['skills/list', route((scope) => this.list(scope))],
      ['skills/get', route((scope) => this.get(scope))],
    ];
    if (this.options.skills.directoryRead)
      routes.push(['resources/directory/read', route((scope) => this.readDirectory(scope))]);
    return routes;
  }

  advertise(): JsonObject | undefined {
    if (!this.skills.advertised) return undefined;
    return this.options.skills.directoryRead ? { directoryRead: true } : {};
  }

  /** Declaring the skills extension requires declaring `resources` (SEP-2640), even to a caller who sees no resource. */
  requiredCapabilities(): readonly string[] {
    return this.skills.advertised ? ['resources'] : [];
  }

  /** `skills/list`: the listed skills the caller may see, a page at a time (an entry is never split). */
  private async list(scope: McpRequestScope): Promise<JsonObject> {
    const caller = this.access.callerOf(scope);
    const visible = this.skills.listed().filter((skill) => this.access.isVisible(skill.summary, caller));
    const { items, nextCursor } = page(visible, 'skills', scope.params.cursor, this.options.pageSize);
    const skills = await Promise.all(items.map((skill) => skill.entry()));
    return { skills, ...(nextCursor !== undefined && { nextCursor }), ...this.hints() } as JsonObject;
  }

  /** `skills/get`: the entry of any served skill (listed or not) by the URI of its SKILL.md; anything else is `-32602`. */
  private async get(scope: McpRequestScope): Promise<JsonObject> {
    const uri = requireString(scope.params, 'uri');
    const skill = this.skills.get(uri);
    if (!skill) throw unknownSkill(uri);
    this.access.admit(scope, skill.summary, unknownSkill, uri);
    return { skill: await skill.entry(), ...this.hints(skill) } as JsonObject;
  }

  /**
   * `resources/directory/read`: the direct children of a directory of the skill namespace (files with their type and
   * size, subdirectories as `inode/directory`), a page at a time. A URI that is not such a directory, or that holds
   * nothing the caller may see, is `-32602`.
   */
  private async readDirectory(scope: McpRequestScope): Promise<JsonObject> {
    const uri = requireString(scope.params, 'uri');
    const caller = this.access.callerOf(scope);
    const sees = (owners: Iterable<ServedSkill>) =>
      [...owners].some((skill) => this.access.isVisible(skill.summary, caller));
    let tree = this.skills.directories();
    const dynamic = this.skills.dynamicAt(uri);
    if (dynamic && this.access.isVisible(dynamic.summary, caller)) {
      tree = new SkillDirectoryTree();
      tree.add(dynamic, await dynamic.snapshot());
    }
    const directory = tree.get(uri);
    if (!directory || !sees(directory.owners)) throw notADirectory(uri);
    const children = [...directory.children.values()]
      .filter((child) => sees(child.owners))
      .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    const list = `dir-${createHash('sha256').update(uri).digest('base64url').slice(0, 16)}`;
    const { items, nextCursor } = page(children, list, scope.params.cursor, this.options.pageSize);
    return {
      resources: items.map(SkillDirectoryTree.resourceOf),
      ...(nextCursor !== undefined && { nextCursor }),
      ...this.hints(),
    } as JsonObject;
  }

  /** `ttlMs` and `cacheScope` (`"private"` when callers may see different skills, or `skill` is restricted). */
  private hints(skill?: ServedSkill): { ttlMs: number; cacheScope: string } {
    const { ttlMs, cacheScope } = this.options.skills;
    const perCaller =
      this.access.listMode(this.skills.all()) !== 'shared' ||
      (skill !== undefined && this.access.restricts(skill.summary));
    return { ttlMs, cacheScope: perCaller ? 'private' : cacheScope };
  }
}

/** Cuts `entries` at the offset in `cursor` (opaque, tagged with `list`); never a `nextCursor` on the last page. */
function page<T>(
  entries: readonly T[],
  list: string,
  cursor: unknown,
  size: number,
): { items: readonly T[]; nextCursor?: string } {
  const offset = CursorCodec.decode(list, cursor);
  if (offset > 0 && offset >= entries.length) throw McpError.invalidParams('Invalid params: invalid cursor');
  const end = offset + size;
  return {
    items: entries.slice(offset, end),
    ...(end < entries.length && { nextCursor: CursorCodec.encode(list, end) }),
  };
}

/** `-32602` for a URI that is not the SKILL.md of a skill the caller may see (both wires); the URI is bounded. */
function unknownSkill(uri: string): McpError {
  const shown = echoed(uri);
  return McpError.invalidParams(`Invalid params: ${shown} is not the SKILL.md of a skill this server serves`, {
    uri: shown,
  });
}

/** `-32602` for a URI that is not a skill directory the caller may see; the URI is bounded. */
function notADirectory(uri: string): McpError {
  const shown = echoed(uri);
  return McpError.invalidParams(`Invalid params: ${shown} is not a skill directory this server serves`, { uri: shown });
}
