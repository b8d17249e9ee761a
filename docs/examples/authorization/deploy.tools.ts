import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable, UseGuards } from '@nestjs/common';
import {
  McpArgs,
  type McpAccessToken,
  McpExecutionContext,
  McpPrincipal,
  McpScopes,
  McpTool,
  McpToken,
} from 'nest-mcp';

// #region docs:on-call-guard
/**
 * A business rule that stays a guard: only the team on call may roll back. The token was verified and `@McpScopes`
 * checked before any guard runs; the guard reads who calls from the MCP context.
 */
@Injectable()
export class OnCallGuard implements CanActivate {
  private readonly onCall = new Set(['alice', 'ops-pipeline']);

  canActivate(context: ExecutionContext): boolean {
    const mcp = McpExecutionContext.create(context);
    const principal = mcp.getPrincipal();
    if (principal !== undefined && this.onCall.has(principal)) return true;
    // The token's own claims are there too, e.g. groups from the identity provider.
    const groups = mcp.getAccessToken()?.claims.groups;
    if (Array.isArray(groups) && groups.includes('sre')) return true;
    throw new ForbiddenException(`${mcp.getHandlerName()} is for the on-call team`);
  }
}
// #endregion docs:on-call-guard

// #region docs:deploy-tools
/** Every tool here needs `ops:read`; changing ones add their own scope (a token needs all of them). */
@McpScopes('ops:read')
@Injectable()
export class DeployTools {
  @McpTool({ description: 'Shows what runs where' })
  status(@McpPrincipal() caller: string): string {
    return `all green (asked by ${caller})`;
  }

  @McpScopes('ops:write')
  @McpTool({
    description: 'Deploys a release',
    input: { type: 'object', properties: { release: { type: 'string' } }, required: ['release'] },
  })
  deploy(
    @McpArgs('release') release: string,
    @McpPrincipal() caller: string,
    @McpToken() token: McpAccessToken,
  ): string {
    // The verified token's content, never the raw bearer string: scopes, client, claims.
    return `deploying ${release} for ${caller} (client ${token.clientId ?? 'unknown'})`;
  }

  @McpScopes('ops:write')
  @UseGuards(OnCallGuard)
  @McpTool({ description: 'Rolls the last release back' })
  rollback(): string {
    return 'rolled back';
  }
}
// #endregion docs:deploy-tools
