import type { Meter } from '@opentelemetry/api';
import type { McpTaskQueueDepth } from '../protocol/task-runner.interface.js';
import { ATTR_NEST_MCP_SERVER, ATTR_NEST_MCP_STATE, METRIC_TASK_QUEUE_DEPTH } from './semconv.js';

/** The job states the gauge reports, one data point each (a bounded attribute). */
const STATES = ['waiting', 'delayed', 'active'] as const;

/**
 * Registers `nest_mcp.task.queue.depth` on `meter`: an observable gauge that reads the shared task queue's job counts
 * once per collection (`read`, the runner's `queueDepth`) and reports one data point per state (`nest_mcp.state`),
 * with `nest_mcp.server` when the queue is a named server's own (`server`).
 * A metric read never throws: a read that fails (Redis unreachable, a timeout) or answers nonsense reports nothing for
 * that collection.
 */
export function observeTaskQueueDepth(meter: Meter, read: () => Promise<McpTaskQueueDepth>, server?: string): void {
  const scope = server === undefined ? {} : { [ATTR_NEST_MCP_SERVER]: server };
  const gauge = meter.createObservableGauge(METRIC_TASK_QUEUE_DEPTH, {
    unit: '{job}',
    description: 'Task rounds in the shared task queue, by job state (waiting, delayed, active)',
  });
  gauge.addCallback(async (result) => {
    let depth: McpTaskQueueDepth;
    try {
      depth = await read();
    } catch {
      return;
    }
    for (const state of STATES) {
      const count = depth?.[state];
      if (Number.isSafeInteger(count) && count >= 0) result.observe(count, { ...scope, [ATTR_NEST_MCP_STATE]: state });
    }
  });
}
