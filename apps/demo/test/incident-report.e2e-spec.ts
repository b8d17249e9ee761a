import { OPS_CONSOLE_SERVER } from '../src/console-servers.constants.js';
import type { INestApplication } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpTestingClient, McpTestingError } from 'nest-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../src/app.module.js';
import { INCIDENT_STEP_MS } from '../src/incidents/index.js';

/**
 * incident_report, the console's task tool, driven with nest-mcp/testing in-process and over HTTP: its steps are
 * made short (`INCIDENT_STEP_MS`), its question answered through tasks/update, and a run cancelled half-way.
 */

const CAN_ELICIT = { elicitation: { form: {} } };
const FAST_POLL = { pollIntervalMs: 5, timeoutMs: 5_000 };

describe.each(['in-process', 'http'] as const)('incident_report as a task (%s)', (mode) => {
  let moduleRef: TestingModule;
  let app: INestApplication | undefined;
  let client: McpTestingClient;

  beforeAll(async () => {
    // #region docs:demo-task-test
    moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(INCIDENT_STEP_MS)
      .useValue(20)
      .compile();
    // #endregion docs:demo-task-test
    if (mode === 'in-process') {
      client = await McpTestingClient.create(moduleRef, { server: OPS_CONSOLE_SERVER, capabilities: CAN_ELICIT });
    } else {
      app = moduleRef.createNestApplication({ logger: false });
      await app.listen(0, '127.0.0.1');
      client = await McpTestingClient.connect(app, { server: OPS_CONSOLE_SERVER, capabilities: CAN_ELICIT });
    }
  });
  afterAll(async () => {
    await (app ? app.close() : moduleRef.close());
  });

  it('is listed as a task tool and refused to a client without the tasks extension', async () => {
    const tool = (await client.listTools()).find((candidate) => candidate.name === 'incident_report');
    expect(tool).toBeDefined();
    await expect(client.callTool('incident_report', { service: 'checkout-api' })).rejects.toSatisfy(
      (error: unknown) => error instanceof McpTestingError && error.code === -32021,
    );
  });

  // #region docs:demo-task-round
  it('reports progress in the status, asks halfway, and attaches the logs when told to', async () => {
    const task = await client.startTask('incident_report', { service: 'checkout-api', severity: 'sev2' });
    expect(task.status).toBe('working');

    const asking = await task.waitFor('input_required', FAST_POLL);
    expect(asking.statusMessage).toBe('Reading the recent logs (2/5)'); // the last step before the question
    expect(asking.inputRequests?.include_logs?.params?.message).toBe(
      'Attach the recent logs of checkout-api to the report?',
    );

    await task.answer('include_logs', { action: 'accept', content: { includeLogs: true } });
    const report = (await task.result(FAST_POLL)).text();

    expect(report).toMatch(/^Incident report: checkout-api \(sev2\)\n/);
    expect(report).toContain('Recent logs:');
  });
  // #endregion docs:demo-task-round

  // #region docs:demo-task-scripted
  it('leaves the logs out when the user declines', async () => {
    const task = await client.startTask('incident_report', { service: 'checkout-api' });

    const result = await task.result({ ...FAST_POLL, answers: [{ action: 'decline' }] });

    expect(result.text()).toContain('(sev3)');
    expect(result.text()).toContain('Logs not attached.');
  });
  // #endregion docs:demo-task-scripted

  it('stops when cancelled while it works', async () => {
    const task = await client.startTask('incident_report', { service: 'checkout-api' });
    await expect.poll(async () => (await task.poll()).statusMessage).toMatch(/\(\d\/5\)/); // the handler runs

    await task.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100)); // longer than the rest of the steps would take

    expect((await task.poll()).status).toBe('cancelled');
    await expect(task.result(FAST_POLL)).rejects.toThrow(/was cancelled/);
  });

  it('completes with a tool error for an unknown service', async () => {
    const task = await client.startTask('incident_report', { service: 'nope-api' });
    const result = await task.result(FAST_POLL);
    expect(result.isError).toBe(true);
    expect(result.text()).toMatch(/No service named "nope-api"/);
  });
});
