import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { McpHandlerSummary } from 'nest-mcp';
import { McpTestingClient, type McpTestingError } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auth0AppModule } from '../../docs/examples/authorization/auth0.module.js';
import { KeycloakAppModule } from '../../docs/examples/authorization/keycloak.module.js';
import { sreOnlyInternals } from '../../docs/examples/authorization/visibility.module.js';

/**
 * The examples of docs/authorization.md do what the page says: the Keycloak and Auth0 modules boot, `DeployTools`
 * shows each caller what its scopes allow (class + method scopes, the hierarchy), refuses with the step-up challenge,
 * hands the principal and token to the method, and its guard reads them; the visibility hook hides `internal_*` tools
 * from everyone outside the `sre` group. In process, with the testing kit's verified callers (the token checks
 * themselves are shown against a real authorization server in auth-official-client.e2e-spec.ts).
 */

describe.each([
  ['Keycloak', KeycloakAppModule],
  ['Auth0', Auth0AppModule],
] as const)('docs/examples/authorization: the %s module', (_name, module) => {
  let app: INestApplication;
  let client: McpTestingClient;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    client = await McpTestingClient.create(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists by scope, with ops:admin ⊃ ops:write ⊃ ops:read', async () => {
    const names = async (scopes: string[]) =>
      (await client.as({ subject: 'alice', scopes }).listTools()).map((tool) => tool.name).sort();
    expect(await names(['ops:read'])).toEqual(['status']);
    expect(await names(['ops:write'])).toEqual(['deploy', 'rollback', 'status']);
    expect(await names(['ops:admin'])).toEqual(['deploy', 'rollback', 'status']);
    expect(await names(['openid', 'profile'])).toEqual([]);
  });

  it('refuses a read-only caller with 403 and every scope deploy needs; the principal and the token reach the method', async () => {
    const error = (await client
      .as({ subject: 'alice', scopes: ['ops:read'] })
      .callTool('deploy', { release: 'r1' })
      .catch((caught: unknown) => caught)) as McpTestingError;
    expect(error).toMatchObject({ httpStatus: 403, data: { requiredScopes: ['ops:read', 'ops:write'] } });
    expect(error.wwwAuthenticate).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="ops:read ops:write", ' +
        `error="insufficient_scope", error_description="Tool 'deploy' needs the scopes: ops:read ops:write"`,
    );
    const writer = client.as({ subject: 'alice', scopes: ['ops:write'], clientId: 'ops-cli' });
    expect((await writer.callTool('deploy', { release: 'r1' })).text()).toBe('deploying r1 for alice (client ops-cli)');
  });

  it('the on-call guard runs after the scope check and reads the principal and the groups claim', async () => {
    expect((await client.as({ subject: 'alice', scopes: ['ops:write'] }).callTool('rollback')).text()).toBe(
      'rolled back',
    );
    const sre = client.as({ subject: 'carol', scopes: ['ops:write'], claims: { groups: ['sre'] } });
    expect((await sre.callTool('rollback')).text()).toBe('rolled back');
    const other = await client.as({ subject: 'bob', scopes: ['ops:admin'] }).callTool('rollback');
    expect(other.isError).toBe(true);
    expect(other.text()).toContain('rollback is for the on-call team');
  });
});

describe('docs/examples/authorization: the visibility hook', () => {
  const tool = (name: string): McpHandlerSummary => ({ kind: 'tool', name, scopes: [] });
  const caller = (groups?: string[]) => ({
    principal: 'dana',
    scopes: [],
    trusted: false,
    accessToken: { subject: 'dana', scopes: [], claims: groups ? { groups } : {} },
  });

  it('hides internal_* tools from callers outside the sre group, and nothing else', () => {
    expect(sreOnlyInternals(tool('status'), caller())).toBe(true);
    expect(sreOnlyInternals(tool('internal_cache_flush'), caller())).toBe(false);
    expect(sreOnlyInternals(tool('internal_cache_flush'), caller(['dev']))).toBe(false);
    expect(sreOnlyInternals(tool('internal_cache_flush'), caller(['dev', 'sre']))).toBe(true);
  });
});
