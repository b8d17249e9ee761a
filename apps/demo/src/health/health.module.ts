import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { McpRedisHealthIndicator } from 'nest-mcp-redis/health';
import { HealthController } from './health.controller.js';

/** The replica's health endpoint (`GET /health`), served when the console runs on Redis. */
// #region docs:health-module
@Module({
  imports: [TerminusModule],
  controllers: [HealthController],
  providers: [McpRedisHealthIndicator],
})
export class HealthModule {}
// #endregion docs:health-module
