import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { McpExecutionContext } from 'nest-mcp';
import { OPS_ADMIN_ROLE, OPS_ROLE_HEADER } from './ops-role.constants.js';

/**
 * Lets only operators with the admin role through (`x-ops-role: admin`). An ordinary Nest guard: on an MCP tool the
 * HTTP request is the first argument, as on a controller, and a denial becomes an `isError` result the model can
 * relay to the user.
 *
 * With authorization on, the access token decides instead: the tools it guards also carry `@OpsScopes(OPS_ADMIN)`,
 * which nest-mcp checks before any guard runs (403 `insufficient_scope` otherwise), so a call that carries a verified
 * token is already known to be an admin's.
 */
@Injectable()
export class OpsAdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const mcp = context.getType<string>() === 'mcp' ? McpExecutionContext.create(context) : undefined;
    if (mcp?.getAccessToken()) return true;
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    if (request.headers[OPS_ROLE_HEADER] === OPS_ADMIN_ROLE) return true;
    throw new ForbiddenException(
      `${mcp?.getHandlerName() ?? 'this action'} needs the ${OPS_ADMIN_ROLE} role; ask an admin to run it.`,
    );
  }
}
