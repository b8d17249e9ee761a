import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { DeployTools } from './deploy.tools.js';

// #region docs:keycloak
/**
 * Keycloak: the realm is the issuer. Its access tokens are RS256 JWTs with the granted client scopes in `scope`
 * (space-separated, next to `openid profile email`), the user id in `sub` and the client in `azp`. Keycloak does not
 * put the MCP URL in `aud` by itself: add an "Audience" mapper (Included Custom Audience = the resource below) to a
 * client scope every MCP client gets.
 */
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      allowedHosts: ['mcp.example.com'],
      auth: {
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://sso.example.com/realms/ops'],
        scopesSupported: ['ops:read', 'ops:write'],
        scopeHierarchy: { 'ops:admin': ['ops:write'], 'ops:write': ['ops:read'] },
        resourceName: 'Operations console',
      },
    }),
  ],
  providers: [DeployTools],
})
export class KeycloakAppModule {}
// #endregion docs:keycloak
