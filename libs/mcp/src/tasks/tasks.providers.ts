import type { Provider } from '@nestjs/common';
import { McpResolvedOptions } from '../config/resolved-options.js';
import { MCP_TASK_RUNNER } from '../protocol/task-runner.interface.js';
import { MCP_TASK_STORE } from '../protocol/task-store.interface.js';
import { BoundedTaskStore } from './bounded-task.store.js';
import { InMemoryTaskRunner } from './in-memory-task.runner.js';
import { InMemoryTaskStore } from './in-memory-task.store.js';
import { McpTaskMethods } from './task-methods.service.js';
import { McpTaskStarter } from './task.starter.js';
import { McpTaskWorker } from './task.worker.js';

/**
 * The providers of tasks, for `McpModule`: the store and the runner (the `tasks.store` / `tasks.runner` options, or
 * the in-memory defaults), the store's bounds (`BoundedTaskStore`, which the tasks code uses), the worker, the 2026-07-28 tool-task hook
 * (`McpTaskStarter`), and `McpTaskMethods` (the extension: its `tasks/*` routes and advertisement, which `McpModule`
 * lists among the `MCP_EXTENSIONS`).
 */
export function taskProviders(): Provider[] {
  return [
    {
      provide: MCP_TASK_STORE,
      useFactory: (options: McpResolvedOptions) =>
        options.tasks.store ??
        new InMemoryTaskStore({ maxTasksPerOwner: options.tasks.maxTasksPerOwner, maxTasks: options.tasks.maxTasks }),
      inject: [McpResolvedOptions],
    },
    {
      provide: MCP_TASK_RUNNER,
      useFactory: (options: McpResolvedOptions) => options.tasks.runner ?? new InMemoryTaskRunner(),
      inject: [McpResolvedOptions],
    },
    BoundedTaskStore,
    McpTaskWorker,
    McpTaskStarter,
    McpTaskMethods,
  ];
}
