import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpRedisModuleOptions } from './mcp-redis-options.interface.js';

export const {
  ConfigurableModuleClass: McpRedisConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_REDIS_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_REDIS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_REDIS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpRedisModuleOptions>({ moduleName: 'McpRedis' })
  .setExtras<{ isGlobal?: boolean }>({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .setClassMethodName('forRoot')
  .build();
