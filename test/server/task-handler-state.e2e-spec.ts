import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type TaskEnabledSession,
  type V2RequestFraming,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TaskHandlerStateModule, TaskHolds } from '../fixtures/task-handler-state.fixture.js';
import { extTasksRawDispatch } from '../support/ext-tasks-dispatch.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { connectLegacyClient } from '../support/legacy-client.factory.js';
import { assertAllLegacyValid, legacyRecordingFetch } from '../support/legacy-schema.validator.js';

/**
 * Handler state (`ctx.requestState`, `elicit(…, { state })`) across the input rounds of a task, on the 2026-07-28 tasks
 * extension and on 2025-11-25 core tasks, with the official ext-tasks client on both adapters: a task that asks twice
 * takes its hold once, and every later round starts with the state the last asking round left.
 */

const PROTOCOL = '2026-07-28';
const clientInfo = { name: 'nest-mcp-task-state-e2e', version: '1.0.0' };
const clientCapabilities = { elicitation: { form: {} } };

/** Answers the two questions of `book_later`, and records what was asked. */
function answers(asked: string[]) {
  return createApplicationInputHandler({
    elicitation: async (request) => {
      const params =
        (request as unknown as { params?: Record<string, unknown> }).params ??
        (request as unknown as Record<string, unknown>);
      const message = String(params.message);
      asked.push(message);
      return {
        action: 'accept',
        content: (message.startsWith('Book') ? { confirm: true } : { note: 'late arrival' }) as never,
      };
    },
    sampling: async () => {
      throw new Error('no sampling here');
    },
    roots: async () => ({ roots: [] }),
  });
}

const withUser =
  (user: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-user', user);
    return fetch(input, { ...init, headers });
  };

describe.each(ADAPTERS)('handler state across task rounds (%s)', (adapter) => {
  let running: RunningApp;
  let holds: TaskHolds;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [TaskHandlerStateModule] });
    holds = running.app.get(TaskHolds);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    holds.held.length = 0;
    holds.seen.length = 0;
  });
  afterAll(async () => {
    await running?.close();
  });

  async function modern(asked: string[]): Promise<TaskEnabledSession> {
    const client = new Client(clientInfo, {
      capabilities: clientCapabilities,
      versionNegotiation: { mode: { pin: PROTOCOL } },
    });
    await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { fetch: withUser('alice') }));
    const framing: V2RequestFraming = { protocolVersion: PROTOCOL, clientInfo, clientCapabilities };
    const session = createTaskSessionFromClient(client, {
      endpointId: await createTaskSessionEndpointId('nest-mcp-task-state-e2e', { url: running.mcpUrl.href }),
      rawDispatch: extTasksRawDispatch(running.mcpUrl, { 'x-user': 'alice' }),
      v2RequestFraming: framing,
      onInputRequest: answers(asked),
    });
    closers.push(async () => (await session.close(), await client.close()));
    return session;
  }

  async function legacy(asked: string[]): Promise<TaskEnabledSession> {
    const connection = await connectLegacyClient(running.mcpUrl, {
      capabilities: clientCapabilities,
      recorder: legacyRecordingFetch(withUser('bob')),
    });
    const session = createTaskSessionFromClient(connection.client, {
      endpointId: 'task-state-e2e-bob',
      onInputRequest: answers(asked),
    });
    closers.push(async () => {
      await assertAllLegacyValid(connection.recorder);
      await session.close();
      await connection.client.close();
    });
    return session;
  }

  it('2026-07-28: a task that asks twice keeps its state: one hold, and rounds 2 and 3 start with it', async () => {
    const asked: string[] = [];
    const session = await modern(asked);
    const execution = await session.callTool('book_later', { room: 'blue-room' }, { task: { preference: 'require' } });
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({
      content: [{ type: 'text', text: 'Booked blue-room on hold-blue-room-1 (late arrival).' }],
    });
    expect(asked).toEqual(['Book blue-room?', 'A note for the front desk?']);
    expect(holds.held).toEqual(['hold-blue-room-1']);
    expect(holds.seen).toEqual([null, { holdId: 'hold-blue-room-1' }, { holdId: 'hold-blue-room-1' }]);
  });

  it('2025-11-25: the same task on core tasks keeps its state between its rounds too', async () => {
    const asked: string[] = [];
    const session = await legacy(asked);
    const execution = await session.callTool('book_later', { room: 'red-room' });
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject({
      content: [{ type: 'text', text: 'Booked red-room on hold-red-room-1 (late arrival).' }],
    });
    expect(asked).toEqual(['Book red-room?', 'A note for the front desk?']);
    expect(holds.held).toEqual(['hold-red-room-1']);
    expect(holds.seen).toEqual([null, { holdId: 'hold-red-room-1' }, { holdId: 'hold-red-room-1' }]);
  });
});
