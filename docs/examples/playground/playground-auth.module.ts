import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:playground-auth
@Module({
  imports: [
    McpModule.forRoot({
      name: 'orders',
      version: '1.0.0',
      auth: {
        resource: 'http://127.0.0.1:3000/mcp',
        authorizationServers: ['https://auth.example.com'],
        scopesSupported: ['orders:read', 'orders:write'],
      },
      // The public client the page signs in with: its redirect URI is http://127.0.0.1:3000/mcp.
      playground: { clientId: 'orders-playground', scopes: ['orders:read'] },
    }),
  ],
})
export class OrdersModule {}
// #endregion docs:playground-auth
