import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { EntraTokenVerifier } from './entra.verifier.js';

// #region docs:entra
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      allowedHosts: ['mcp.example.com'],
      auth: {
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://login.microsoftonline.com/7f3c1a52-0000-4000-8000-000000000001/v2.0'],
        verifier: new EntraTokenVerifier(),
        // Entra's scope names: "Ops.Read" in tokens, requested by clients as "api://<app>/Ops.Read".
        scopesSupported: ['Ops.Read', 'Ops.Write'],
        scopeHierarchy: { 'Ops.Admin': ['Ops.Write'], 'Ops.Write': ['Ops.Read'] },
      },
    }),
  ],
  // Tools of this server name Entra's scopes: @McpScopes('Ops.Write').
  providers: [],
})
export class EntraAppModule {}
// #endregion docs:entra
