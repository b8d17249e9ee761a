// STUB (helper H3): export { McpRedisHealthIndicator } from './mcp-redis.health-indicator.js';
export {};
