export { type ClusterEnv, mcpOnRedis } from './mcp-on-redis.js';
