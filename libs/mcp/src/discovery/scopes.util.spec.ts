import { describe, expect, it } from 'vitest';
import { McpDefinitionError } from './mcp-definition.error.js';
import { checkScopes } from './scopes.util.js';

describe('checkScopes', () => {
  it('keeps the order, drops duplicates and freezes', () => {
    const scopes = checkScopes('A.m', ['team:ops', 'deploy:write', 'team:ops']);
    expect(scopes).toEqual(['team:ops', 'deploy:write']);
    expect(Object.isFrozen(scopes)).toBe(true);
  });

  it.each([[''], ['two words'], ['quo"te'], ['back\\slash'], ['naïve'], [42]])(
    'refuses %j, naming the declaration',
    (scope) => {
      expect(() => checkScopes('DeployTools.deploy', [scope])).toThrow(McpDefinitionError);
      expect(() => checkScopes('DeployTools.deploy', [scope])).toThrow(
        /DeployTools\.deploy: scope .* is not an OAuth scope token/,
      );
    },
  );
});
