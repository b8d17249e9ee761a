import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InteractiveModule } from '../fixtures/interactive.fixture.js';
import { startApp, type RunningApp } from '../support/app.factory.js';
import { connectClient } from '../support/mcp-client.factory.js';

describe('mrtr smoke', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp('express', { imports: [InteractiveModule] });
  });
  afterAll(() => running?.close());

  it('progress and a form round trip', async () => {
    const client = await connectClient(running.mcpUrl, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
    const seen: unknown[] = [];
    const job = await client.callTool(
      { name: 'longJob', arguments: { steps: 3 } },
      { onprogress: (p: unknown) => seen.push(p) },
    );
    expect(job.content).toEqual([{ type: 'text', text: 'done 3' }]);
    expect(seen).toHaveLength(3);
    const deleted = await client.callTool({ name: 'confirmDelete', arguments: { target: 'db' } });
    expect(deleted.content).toEqual([{ type: 'text', text: 'deleted db' }]);
    await client.close();
  });
});
