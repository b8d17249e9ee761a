export { McpRedisHealthIndicator, type McpRedisHealthDetails } from './mcp-redis.health-indicator.js';
