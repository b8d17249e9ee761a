import { McpDefinitionError } from './mcp-definition.error.js';

/** An RFC 6749 scope-token: printable ASCII without space, `"` or `\` (it is quoted in `WWW-Authenticate`). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * The scopes a handler requires, checked and frozen: each an RFC 6749 scope-token, duplicates dropped (first
 * occurrence kept, so class-level scopes come first). `where` names the declaration in errors.
 */
export function checkScopes(where: string, scopes: readonly unknown[]): readonly string[] {
  if (!Array.isArray(scopes)) throw new McpDefinitionError(where, 'scopes must be an array of strings');
  const unique = new Set<string>();
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
      throw new McpDefinitionError(
        where,
        `scope ${JSON.stringify(scope)} is not an OAuth scope token (printable ASCII without spaces, quotes or backslashes)`,
      );
    }
    unique.add(scope);
  }
  return Object.freeze([...unique]);
}
