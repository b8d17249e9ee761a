/**
 * Judges granted scopes against required ones, honouring a scope hierarchy (MCP 2026-07-28: a broader scope satisfies
 * narrower requirements, T-AUTH-09). The hierarchy maps a scope to the scopes it implies, transitively:
 * `{ 'deploy:admin': ['deploy:write'], 'deploy:write': ['deploy:read'] }` makes `deploy:admin` satisfy
 * `deploy:read`. Its closure is computed once, in the constructor; cycles are fine (scopes on a cycle imply each
 * other).
 *
 * @example new McpScopeMatcher({ admin: ['write'], write: ['read'] }).satisfies(['admin'], ['read']) // true
 */
export class McpScopeMatcher {
  /** Each scope of the hierarchy → everything it implies, itself excluded unless on a cycle. */
  private readonly implied: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(hierarchy: Readonly<Record<string, readonly string[]>> = {}) {
    const implied = new Map<string, ReadonlySet<string>>();
    for (const scope of Object.keys(hierarchy)) implied.set(scope, closure(scope, hierarchy));
    this.implied = implied;
  }

  /** The granted scopes and every scope they imply. */
  expand(granted: Iterable<string>): Set<string> {
    const all = new Set<string>();
    for (const scope of granted) {
      all.add(scope);
      for (const narrower of this.implied.get(scope) ?? []) all.add(narrower);
    }
    return all;
  }

  /** Whether `granted` covers every scope of `required` (directly or through the hierarchy). */
  satisfies(granted: Iterable<string>, required: Iterable<string>): boolean {
    return this.missing(granted, required).length === 0;
  }

  /** The required scopes that `granted` does not cover, in the order given, without duplicates. */
  missing(granted: Iterable<string>, required: Iterable<string>): string[] {
    const covered = this.expand(granted);
    return [...new Set(required)].filter((scope) => !covered.has(scope));
  }
}

/** Every scope reachable from `scope` through the hierarchy (depth-first, each visited once). */
function closure(scope: string, hierarchy: Readonly<Record<string, readonly string[]>>): Set<string> {
  const reached = new Set<string>();
  const pending = [...(Object.hasOwn(hierarchy, scope) ? hierarchy[scope] : [])];
  while (pending.length) {
    const next = pending.pop() as string;
    if (reached.has(next)) continue;
    reached.add(next);
    if (Object.hasOwn(hierarchy, next)) pending.push(...hierarchy[next]);
  }
  return reached;
}
