import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpAuthenticator } from '../auth/mcp-authenticator.service.js';
import type { McpModuleOptions } from '../config/mcp-options.interface.js';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { type McpAccessToken, McpAuthError } from '../protocol/access-token.interface.js';
import type { McpHandlerSummary } from '../protocol/mcp-caller.interface.js';
import { McpError } from '../protocol/mcp.error.js';
import type { McpRequestScope } from '../protocol/mcp-request-scope.interface.js';
import { McpAccessPolicy } from './access.policy.js';

const AUTH = {
  resource: 'https://mcp.example.com/mcp',
  authorizationServers: ['https://auth.example.com'],
  scopeHierarchy: { 'deploy:admin': ['deploy:write'], 'deploy:write': ['deploy:read'] },
};

function policy(options: Partial<McpModuleOptions> = {}): McpAccessPolicy {
  const all = { name: 'srv', version: '1', ...options } as McpModuleOptions;
  return new McpAccessPolicy(all, new McpAuthenticator(new McpResolvedOptions(all)));
}

const token = (...scopes: string[]): McpAccessToken => ({ subject: 'ana', scopes, claims: {} });
const summary = (scopes: string[], kind: McpHandlerSummary['kind'] = 'tool', name = 'deploy'): McpHandlerSummary => ({
  kind,
  name,
  scopes,
});
/** A scope as each origin builds it: HTTP has a response object, stdio and the in-process kit do not. */
const http = (accessToken?: McpAccessToken, principal = accessToken?.subject) =>
  ({ id: 1, principal, accessToken, origin: 'http' }) as unknown as McpRequestScope;
const local = { id: 1, origin: 'stdio' } as unknown as McpRequestScope;
const taskRound = (authorized: boolean) =>
  ({ id: 1, origin: 'task', task: { taskId: 't', authorized } }) as unknown as McpRequestScope;
const unknownTool = (name: string) => McpError.invalidParams(`Unknown tool: ${name}`, { name });

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

beforeAll(() => Logger.overrideLogger(false));

describe('McpAccessPolicy.callerOf', () => {
  const access = policy({ auth: AUTH });

  it('a call with a token: its scopes, not trusted', () => {
    expect(access.callerOf(http(token('a', 'b')))).toEqual({
      principal: 'ana',
      scopes: ['a', 'b'],
      accessToken: token('a', 'b'),
      trusted: false,
    });
  });

  it('a local call (stdio, the in-process kit) is trusted; an HTTP call without a token is not', () => {
    expect(access.callerOf(local)).toEqual({ principal: undefined, scopes: [], trusted: true });
    expect(access.callerOf(http())).toMatchObject({ scopes: [], trusted: false });
  });

  it('a task round is trusted only when its creation was authorized', () => {
    expect(access.callerOf(taskRound(true)).trusted).toBe(true);
    expect(access.callerOf(taskRound(false)).trusted).toBe(false);
  });
});

describe('McpAccessPolicy.admit', () => {
  it('passes a handler without scopes at once, and one whose scopes the token satisfies through the hierarchy', () => {
    const access = policy({ auth: AUTH });
    expect(() => access.admit(http(), summary([]), unknownTool, 'deploy')).not.toThrow();
    expect(() =>
      access.admit(http(token('deploy:admin')), summary(['deploy:read', 'deploy:write']), unknownTool, 'deploy'),
    ).not.toThrow();
  });

  it('refuses insufficient scopes with 403 and a challenge naming every scope the handler needs', () => {
    const access = policy({ auth: AUTH, scopesSupported: ['deploy:read'] } as Partial<McpModuleOptions>);
    const error = thrown(() =>
      access.admit(http(token('team:ops')), summary(['team:ops', 'deploy:write']), unknownTool, 'deploy'),
    );
    expect(error).toBeInstanceOf(McpAuthError);
    expect(error).toMatchObject({
      httpStatus: 403,
      code: -32600,
      data: { requiredScopes: ['team:ops', 'deploy:write'] },
    });
    const challenge = (error as McpAuthError).challenge;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="team:ops deploy:write"');
    expect(challenge).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"');
    expect(challenge).toMatch(/error_description="Tool 'deploy' needs the scopes: team:ops deploy:write"/);
  });

  it('names resources by URI in the description', () => {
    const error = thrown(() =>
      policy({ auth: AUTH }).admit(
        http(token()),
        { kind: 'resource', name: 'handbook', uri: 'docs://handbook', scopes: ['docs:read'] },
        unknownTool,
        'x',
      ),
    ) as McpAuthError;
    expect(error.message).toBe('Insufficient scope: Resource "docs://handbook" needs the scopes: docs:read');
  });

  it('an HTTP call that reached a scoped handler without a token on a server with auth gets 401 (fail closed)', () => {
    const error = thrown(() => policy({ auth: AUTH }).admit(http(), summary(['deploy:read']), unknownTool, 'deploy'));
    expect(error).toMatchObject({ httpStatus: 401 });
    expect((error as McpAuthError).challenge).not.toContain('error=');
  });

  it('trusts local calls and authorized task rounds; refuses an unauthorized round', () => {
    const access = policy({ auth: AUTH });
    expect(() => access.admit(local, summary(['deploy:write']), unknownTool, 'deploy')).not.toThrow();
    expect(() => access.admit(taskRound(true), summary(['deploy:write']), unknownTool, 'deploy')).not.toThrow();
    expect(
      thrown(() => access.admit(taskRound(false), summary(['deploy:write']), unknownTool, 'deploy')),
    ).toMatchObject({ httpStatus: 403 });
  });

  it('without auth, an HTTP call never satisfies @McpScopes: a plain 403 (no OAuth challenge)', () => {
    const error = thrown(() => policy().admit(http(), summary(['deploy:read']), unknownTool, 'deploy'));
    expect(error).toBeInstanceOf(McpError);
    expect(error).not.toBeInstanceOf(McpAuthError);
    expect(error).toMatchObject({ httpStatus: 403, data: { requiredScopes: ['deploy:read'] } });
  });

  it("a handler the hook hides throws exactly the feature's unknown error, before the scope check", () => {
    const access = policy({ auth: AUTH, visibility: (handler) => handler.name !== 'secret' });
    const error = thrown(() =>
      access.admit(http(token()), summary(['deploy:write'], 'tool', 'secret'), unknownTool, 'secret'),
    );
    expect(error).toEqual(unknownTool('secret'));
    expect(() => access.admit(local, summary([], 'tool', 'open'), unknownTool, 'open')).not.toThrow();
  });

  it('a hook that throws hides (fail closed); only `true` shows', () => {
    const throwing = policy({
      visibility: () => {
        throw new Error('boom');
      },
    });
    expect(throwing.isVisible(summary([]), throwing.callerOf(local))).toBe(false);
    const truthy = policy({ visibility: (() => 1) as never });
    expect(truthy.isVisible(summary([]), truthy.callerOf(local))).toBe(false);
  });

  it('refuses a visibility option that is not a function at startup', () => {
    expect(() => policy({ visibility: 'yes' as never })).toThrow(/"visibility" must be a function/);
  });
});

describe('McpAccessPolicy lists', () => {
  const scoped = [{ summary: summary(['a']) }, { summary: summary([]) }];
  const open = [{ summary: summary([]) }];

  it('serves a list shared, private, per scope set or per request (hook)', () => {
    expect(policy().listMode(open)).toBe('shared');
    expect(policy({ auth: AUTH }).listMode(open)).toBe('private');
    expect(policy().listMode(scoped)).toBe('scopes');
    expect(policy({ auth: AUTH }).listMode(scoped)).toBe('scopes');
    expect(policy({ visibility: () => true }).listMode(open)).toBe('hook');
  });

  it('callers with the same scopes in any order share a key; trusted callers have their own', () => {
    const access = policy({ auth: AUTH });
    const key = (scope: McpRequestScope) => access.scopeKey(access.callerOf(scope));
    expect(key(http(token('b', 'a', 'a')))).toBe(key(http(token('a', 'b'))));
    expect(key(http(token('a')))).not.toBe(key(http(token('a', 'b'))));
    expect(key(local)).not.toBe(key(http(token())));
  });
});
