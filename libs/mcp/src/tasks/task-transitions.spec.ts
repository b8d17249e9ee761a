import { describe, expect, it } from 'vitest';
import type { McpTaskRecord } from '../protocol/task-record.interface.js';
import { answeredTask, cancelledTask, completedTask, failedTask, inputRequiredTask } from './task-transitions.js';

const asking: McpTaskRecord = {
  taskId: 't1',
  owner: null,
  wire: 'modern',
  method: 'tools/call',
  params: { name: 'x' },
  clientCapabilities: {},
  protocolVersion: '2026-07-28',
  status: 'input_required',
  createdAt: 1,
  lastUpdatedAt: 1,
  ttlMs: 1_000,
  pollIntervalMs: 100,
  answers: {},
  issuedKeys: ['name'],
  inputRequests: { name: { handlerKey: 'name', method: 'elicitation/create' } },
  handlerState: { step: 1 },
  version: 3,
};

describe('task-record transitions', () => {
  it('every ending drops what only a running task needs: outstanding requests and the handler state', () => {
    const ended = [
      failedTask(asking, { code: -32603, message: 'broke' }),
      cancelledTask(asking, 'Cancelled by request'),
      completedTask(asking, { content: [] }),
    ];
    for (const record of ended) expect([record.inputRequests, record.handlerState]).toEqual([undefined, undefined]);
    expect(ended.map((record) => record.status)).toEqual(['failed', 'cancelled', 'completed']);
    expect(ended[0]).toMatchObject({ error: { code: -32603, message: 'broke' }, statusMessage: 'broke' });
    expect(ended[1].statusMessage).toBe('Cancelled by request');
  });

  it('input_required keeps the requests, every key issued and the state; answers resume it once nothing is outstanding', () => {
    const waiting = inputRequiredTask({ ...asking, status: 'working' }, asking.inputRequests!, ['name'], { step: 2 });
    expect(waiting).toMatchObject({ status: 'input_required', issuedKeys: ['name'], handlerState: { step: 2 } });
    const partly = answeredTask(
      waiting,
      { name: 'ada' },
      { other: { handlerKey: 'other', method: 'elicitation/create' } },
    );
    expect(partly).toMatchObject({ status: 'input_required', answers: { name: 'ada' } });
    const resumed = answeredTask(waiting, { name: 'ada' }, {});
    expect(resumed).toMatchObject({ status: 'working', answers: { name: 'ada' }, inputRequests: undefined });
  });
});
