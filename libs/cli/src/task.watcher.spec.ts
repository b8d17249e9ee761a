import { describe, expect, it } from 'vitest';
import { CliExitCode } from './cli.error.js';
import type { TaskChannel, WireTask } from './task.channel.js';
import { watchTask } from './task.watcher.js';

/** A channel that answers `tasks/get` from a script and records every request. */
function fakeChannel(states: Partial<WireTask>[]) {
  const sent: [string, Record<string, unknown>][] = [];
  const channel = {
    request: async (method: string, params: Record<string, unknown>) => {
      sent.push([method, params]);
      return method === 'tasks/get' ? (states.shift() ?? {}) : {};
    },
  } as unknown as TaskChannel;
  return { channel, sent };
}

const created: WireTask = { taskId: 't1', status: 'working', pollIntervalMs: 1 };
const noAnswers = { answer: async () => ({ action: 'decline' as const }) };

describe('watchTask', () => {
  it('shows each new status once, answers input requests once, and returns the result without resultType', async () => {
    const { channel, sent } = fakeChannel([
      { status: 'working' },
      { status: 'input_required', inputRequests: { go: { method: 'elicitation/create', params: { message: 'Go?' } } } },
      { status: 'completed', result: { resultType: 'complete', content: [] } },
    ]);
    const shown: string[] = [];
    const result = await watchTask(created, {
      channel,
      responder: noAnswers,
      onStatus: (task) => shown.push(task.status),
      signal: new AbortController().signal,
    });
    expect(result).toEqual({ content: [] });
    expect(shown).toEqual(['working', 'input_required', 'completed']);
    expect(sent.filter(([method]) => method === 'tasks/update')).toEqual([
      ['tasks/update', { taskId: 't1', inputResponses: { go: { action: 'decline' } } }],
    ]);
  });

  it('sends tasks/cancel once on abort and rejects with exit code 130', async () => {
    const { channel, sent } = fakeChannel([]);
    const abort = new AbortController();
    const watching = watchTask(
      { ...created, pollIntervalMs: 60_000 },
      { channel, responder: noAnswers, onStatus: () => abort.abort(), signal: abort.signal },
    );
    await expect(watching).rejects.toMatchObject({
      exitCode: CliExitCode.Interrupted,
      message: 'interrupted: task t1 cancelled',
    });
    expect(sent).toEqual([['tasks/cancel', { taskId: 't1' }]]);
  });

  it('rejects with the error of a failed task', async () => {
    const { channel } = fakeChannel([{ status: 'failed', error: { code: -32603, message: 'boom' } }]);
    await expect(
      watchTask(created, { channel, responder: noAnswers, onStatus: () => {}, signal: new AbortController().signal }),
    ).rejects.toThrow('task t1 failed: boom');
  });
});
