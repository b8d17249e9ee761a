import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { McpRedisHealthIndicator } from 'nest-mcp-redis/health';

/**
 * `GET /health` for load balancers and orchestrators: 200 while Redis answers and this replica's task worker runs;
 * 503 with the reason (e.g. `redis: unreachable`) otherwise. Outside the MCP endpoint, so no MCP header applies.
 */
// #region docs:health-controller
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly redis: McpRedisHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.redis.isHealthy()]);
  }
}
// #endregion docs:health-controller
