import { Module } from '@nestjs/common';
import { McpRedisModule } from 'nest-mcp-redis';

// #region docs:redis-tuning
@Module({
  imports: [
    McpRedisModule.forRoot({
      url: process.env.REDIS_URL,
      keyPrefix: 'ops-console',
      commandTimeoutMs: 2_000, // a Redis command that takes longer fails: task calls get a clear error, never hang
      tasks: {
        concurrency: 32, // rounds one replica runs at once
        lockDurationMs: 15_000, // a dead worker's round is re-run elsewhere after about lockDuration + stalledInterval
        stalledIntervalMs: 5_000,
        maxStalledCount: 2, // re-runs after worker deaths before the task fails
        maxTasksPerOwner: 50,
      },
      requestState: { maxStatesPerCaller: 1_000 },
    }),
  ],
})
export class RedisTuningModule {}
// #endregion docs:redis-tuning
