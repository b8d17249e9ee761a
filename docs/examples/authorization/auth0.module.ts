import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { DeployTools } from './deploy.tools.js';

// #region docs:auth0
/**
 * Auth0: an API whose identifier is the MCP URL, so that tokens for it carry that URL in `aud` (next to the userinfo
 * URL when `openid` is asked too: `aud` is then an array, which is fine). The issuer is the tenant's domain WITH its
 * trailing slash, exactly as in the tokens' `iss`. Scopes are the API's permissions, in `scope`; machine-to-machine
 * tokens have `<client id>@clients` as their subject.
 */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      allowedHosts: ['mcp.example.com'],
      auth: {
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://ops-example.eu.auth0.com/'],
        scopesSupported: ['ops:read', 'ops:write'],
        scopeHierarchy: { 'ops:admin': ['ops:write'], 'ops:write': ['ops:read'] },
        jwt: { algorithms: ['RS256'] }, // the API's signing algorithm
      },
    }),
  ],
  providers: [DeployTools],
})
export class Auth0AppModule {}
// #endregion docs:auth0
