import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  Module,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { McpModule, McpPrincipal, McpScopes, McpTool } from 'nest-mcp';

/** What a typical JWT guard leaves on the request. */
interface RequestWithUser {
  headers: Record<string, string | string[] | undefined>;
  user?: { sub: string; scopes: string[] };
}

/** Stands for your JWT validation (passport-jwt, jose…): the part that `auth` replaces. */
declare function validateJwt(token: string): { sub: string; scopes: string[] } | undefined;

// #region docs:before
/** Before: a Nest guard validates the JWT on every tool, sets `request.user`, and checks the scopes by hand. */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithUser>();
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    request.user = token === undefined ? undefined : validateJwt(token);
    if (!request.user?.scopes.includes('ops:write')) throw new UnauthorizedException();
    return true;
  }
}

@Injectable()
export class LegacyDeployTools {
  @UseGuards(JwtAuthGuard)
  @McpTool({ description: 'Deploys the latest release' })
  deploy(): string {
    return 'deploying';
  }
}
// #endregion docs:before

// #region docs:after
/** After: `auth` validates every request before dispatch; the scope is declared; the principal is a parameter. */
@Injectable()
export class DeployTools {
  @McpScopes('ops:write')
  @McpTool({ description: 'Deploys the latest release' })
  deploy(@McpPrincipal() caller: string): string {
    return `deploying for ${caller}`;
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      // No `principal` option any more: with `auth`, the token's subject is the principal (map it with auth.principal).
      auth: {
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://sso.example.com/realms/ops'],
        principal: (token) => token.subject,
      },
    }),
  ],
  providers: [DeployTools],
})
export class MigratedAppModule {}
// #endregion docs:after
