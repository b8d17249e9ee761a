import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:public-hosts
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://console.example.com'], // only if browser apps call the endpoint directly
    }),
  ],
})
export class AppModule {}
// #endregion docs:public-hosts
