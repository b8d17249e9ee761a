import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';

// #region docs:fair-shares
@Module({
  imports: [
    McpModule.forRoot({
      name: 'ops-console',
      version: '1.0.0',
      // Authenticated callers are counted one by one; anonymous callers by their remote address.
      principal: (request) => (request as { user?: { sub?: string } }).user?.sub,
      maxCallsInFlight: 2_000, // everyone together, per replica: 503 beyond
      maxCallsInFlightPerPrincipal: 64, // one caller: 429 beyond
      maxCallsInFlightPerAddress: 512, // behind a proxy every anonymous caller shares the proxy's address
      maxListenStreamsPerPrincipal: 10,
      maxSessionsPerPrincipal: 10,
    }),
  ],
})
export class AppModule {}
// #endregion docs:fair-shares
