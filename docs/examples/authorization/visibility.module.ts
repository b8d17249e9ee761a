import { Module } from '@nestjs/common';
import { McpModule, type McpVisibilityHook } from 'nest-mcp';
import { DeployTools } from './deploy.tools.js';

// #region docs:visibility
/**
 * On top of scopes: tools whose name starts with `internal_` exist only for members of the `sre` group (a claim of
 * the token). Hidden tools are left out of `tools/list`, and calling one answers exactly like an unknown tool.
 * Runs per handler and request: keep it synchronous and cheap.
 */
export const sreOnlyInternals: McpVisibilityHook = (handler, caller) => {
  if (!handler.name.startsWith('internal_')) return true;
  const groups = caller.accessToken?.claims.groups;
  return Array.isArray(groups) && groups.includes('sre');
};

@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      auth: { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://sso.example.com/realms/ops'] },
      visibility: sreOnlyInternals,
    }),
  ],
  providers: [DeployTools],
})
export class VisibilityAppModule {}
// #endregion docs:visibility
