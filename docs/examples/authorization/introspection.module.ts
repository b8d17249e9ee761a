import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { DeployTools } from './deploy.tools.js';

// #region docs:introspection
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      allowedHosts: ['mcp.example.com'],
      auth: {
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://sso.example.com/realms/ops'],
        // Opaque tokens: ask the authorization server (RFC 7662) with this resource server's own credentials.
        introspection: {
          endpoint: 'https://sso.example.com/realms/ops/protocol/openid-connect/token/introspect',
          clientId: 'ops-console-mcp',
          clientSecret: process.env.MCP_INTROSPECTION_SECRET ?? '',
          // Answers are kept this long (never past the token's expiry): a revoked token is refused within 30 s.
          cacheTtlMs: 30_000,
        },
        scopesSupported: ['ops:read', 'ops:write'],
      },
    }),
  ],
  providers: [DeployTools],
})
export class IntrospectionAppModule {}
// #endregion docs:introspection
