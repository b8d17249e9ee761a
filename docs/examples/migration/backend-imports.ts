// #region docs:backend-imports
import { McpModule } from 'nest-mcp';
import { MCP_TASK_STORE, type McpJwtOptions, type McpTaskStore } from 'nest-mcp/backend';
// #endregion docs:backend-imports

/** What docs/migration.md shows: the names of both entries, used together as an application would. */
export const jwt: McpJwtOptions = { clockToleranceSec: 10 };
export const taskStoreToken: symbol | string = MCP_TASK_STORE;
export type TaskStore = McpTaskStore;
export const moduleClass = McpModule;
