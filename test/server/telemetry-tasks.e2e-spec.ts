import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  type RawClientDispatch,
  type V2RequestFraming,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type DemoCluster } from '../support/cluster.js';
import { OtlpReceiver, type OtlpSpan } from '../support/otlp-receiver.js';
import { mcpPost, requestMeta } from '../support/raw-request.util.js';

/**
 * A trace through a task on several replicas (issue #27, item 1): the official client sends a `tools/call` of the
 * demo's `incident_report` (a task) with a W3C `traceparent` in `_meta` to replica 0; that request's SERVER span
 * continues the client's trace and records the task. Replica 0 then stops, so the task's rounds run off the BullMQ
 * queue on the other replicas (child processes on one Redis): each round is a CONSUMER span `execute_tool
 * incident_report` in a trace of its own, linked to the request that created the task. Every replica exports by
 * OTLP/HTTP to a receiver on 127.0.0.1.
 */

const PROTOCOL = '2026-07-28';
const TRACE_ID = '6bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '20f067aa0ba902b7';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const FORM = { elicitation: { form: {} } };
const CAPABILITIES = { ...FORM, ...TASKS };

/**
 * The official client on `callUrl` with an ext-tasks session; its raw requests (the task-augmented `tools/call`,
 * `tasks/*`) go to whatever replica `tasksUrl()` names at the time.
 */
async function taskSession(callUrl: URL, tasksUrl: () => URL, answer: Record<string, unknown>) {
  const clientInfo = { name: 'nest-mcp-telemetry-e2e', version: '1.0.0' };
  const client = new Client(clientInfo, {
    capabilities: CAPABILITIES,
    versionNegotiation: { mode: { pin: PROTOCOL } },
  });
  await client.connect(new StreamableHTTPClientTransport(callUrl));
  const framing: V2RequestFraming = { protocolVersion: PROTOCOL, clientInfo, clientCapabilities: CAPABILITIES };
  const asked: string[] = [];
  const rawDispatch: RawClientDispatch = async (request, options) => {
    const { method, params = {} } = request as { method: string; params?: Record<string, unknown> };
    const response = await mcpPost(tasksUrl(), {
      method,
      params: Object.fromEntries(Object.entries(params).filter(([key]) => key !== '_meta')),
      meta: {
        ...requestMeta({ 'io.modelcontextprotocol/clientCapabilities': CAPABILITIES }),
        ...(params._meta as object),
      },
      headers: {
        ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}),
        ...Object.fromEntries(
          Object.entries(options?.context?.headers ?? {}).map(([key, value]) => [key.toLowerCase(), String(value)]),
        ),
      },
    });
    const message = response.json as { result?: never; error?: never };
    return message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result! };
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: await createTaskSessionEndpointId('nest-mcp-telemetry-e2e', { url: callUrl.href }),
    rawDispatch,
    v2RequestFraming: framing,
    onInputRequest: createApplicationInputHandler({
      elicitation: async (request) => {
        asked.push(String(request.params.message ?? ''));
        return { action: 'accept', content: answer as never };
      },
      sampling: async () => {
        throw new Error('no sampling in these tests');
      },
      roots: async () => ({ roots: [] }),
    }),
  });
  return { session, asked, close: async () => (await session.close(), await client.close()) };
}

describe('telemetry: a task’s trace across replicas (BullMQ on Redis, OTLP/HTTP)', () => {
  let receiver: OtlpReceiver;
  let cluster: DemoCluster;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    cluster = await startCluster({ otel: { tracesUrl: receiver.tracesUrl }, incidentStepMs: 300, taskLockMs: 2_000 });
  }, 180_000);
  afterAll(async () => {
    await cluster?.dispose();
    await receiver?.close();
  }, 60_000);

  it('the client’s _meta trace → the tools/call span → round spans on other replicas, each linked to it', async () => {
    const [first, second] = cluster.replicas;
    // The official client calls replica 0; once the task exists its ext-tasks session polls and answers through replica 1.
    let target = first.mcpUrl;
    const { session, asked, close } = await taskSession(first.mcpUrl, () => target, { includeLogs: true });
    let request: OtlpSpan;
    let taskId: string;
    try {
      const execution = await session.callTool(
        'incident_report',
        { service: 'checkout-api' },
        {
          task: { preference: 'require' },
          metadata: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
        },
      );
      expect(execution.kind).toBe('task');
      taskId = execution.handle!.taskId;
      request = await receiver.waitFor(
        (span) => span.name === 'tools/call incident_report' && span.traceId === TRACE_ID,
      );
      expect(request).toMatchObject({ parentSpanId: PARENT_ID, kind: 2, service: 'replica-0' });
      expect(request.attributes).toMatchObject({
        'nest_mcp.outcome': 'task',
        'nest_mcp.task.id': taskId,
        'gen_ai.tool.name': 'incident_report',
      });
      // Replica 0 leaves: the rounds of the task run on the others, off the queue.
      target = second.mcpUrl;
      await first.stop();
      const { outcome } = await execution.settle();
      expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
      expect(asked).toEqual(['Attach the recent logs of checkout-api to the report?']);
    } finally {
      await close();
    }

    const linked = (span: OtlpSpan) =>
      span.links.some((link) => link.traceId === TRACE_ID && link.spanId === request.spanId);
    const last = await receiver.waitFor(
      (span) =>
        span.name === 'execute_tool incident_report' &&
        linked(span) &&
        span.attributes['nest_mcp.task.status'] === 'completed',
    );
    const rounds = receiver.spans.filter((span) => span.name === 'execute_tool incident_report' && linked(span));
    expect(rounds.length).toBeGreaterThanOrEqual(2);
    for (const round of rounds) {
      // A trace of its own (its sampling is its own), a CONSUMER of the queue, on a replica that did not create it.
      expect(round.traceId).not.toBe(TRACE_ID);
      expect(round.parentSpanId).toBeUndefined();
      expect(round.kind).toBe(5);
      expect(round.attributes).toMatchObject({
        'nest_mcp.task.id': taskId,
        'gen_ai.tool.name': 'incident_report',
        'gen_ai.operation.name': 'execute_tool',
      });
      expect(round.attributes).not.toHaveProperty('jsonrpc.request.id');
    }
    expect(rounds.some((round) => round.attributes['nest_mcp.task.status'] === 'input_required')).toBe(true);
    expect(last.service).not.toBe('replica-0');
    // tasks/* spans are named by the method alone: task ids are never part of a span name.
    const polls = receiver.spans.filter((span) => span.name.startsWith('tasks/'));
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) expect(poll.name).not.toContain(taskId);
    if (process.env.NEST_MCP_TRACE_DUMP) {
      const chain = [request, ...rounds, ...polls.filter((poll) => poll.name === 'tasks/update')];
      process.stdout.write(`${JSON.stringify(chain, null, 1)}\n`);
    }
  }, 120_000);
});
