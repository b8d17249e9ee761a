export { InMemoryTaskStore, type InMemoryTaskStoreLimits } from './in-memory-task.store.js';
export { BoundedTaskStore } from './bounded-task.store.js';
export { TaskRecordTooLargeError } from './task-record-too-large.error.js';
export { InMemoryTaskRunner } from './in-memory-task.runner.js';
export { McpTaskWorker } from './task.worker.js';
export { McpTaskStarter } from './task.starter.js';
export { McpTaskMethods } from './task-methods.service.js';
export { LegacyTaskWire } from './legacy-task.wire.js';
export { TaskRound } from './task-round.js';
export { TaskCallPort, type TaskCallRequest } from './task-call.port.js';
export { newTaskId } from './task-id.util.js';
export { newTaskRecord, queueTask, type NewTaskOptions } from './task-launch.util.js';
export { isAnswerShaped } from './task-answer.util.js';
export {
  createTaskResult,
  declaresTasks,
  detailedTask,
  taskFields,
  TASKS_REQUIRED_CAPABILITIES,
} from '../protocol/task-wire.util.js';
export { taskProviders } from './tasks.providers.js';
export { authorizeTaskCreation } from './task-authorization.util.js';
export { answeredTask, cancelledTask, completedTask, failedTask, inputRequiredTask } from './task-transitions.js';
