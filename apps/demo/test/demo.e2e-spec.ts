import { type Client, ProtocolError, ResourceNotFoundError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, startApp, type RunningApp } from '../../../test/support/app.factory.js';
import { connectClient } from '../../../test/support/mcp-client.factory.js';
import { AppModule } from '../src/app.module.js';

/** The text of the first content block of a tool result. */
function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as Array<{ type: string; text?: string }>;
  expect(first?.type).toBe('text');
  return first.text ?? '';
}

/** The text of the only contents of a `resources/read` result. */
function contentsOf(result: { contents: Array<{ uri: string; mimeType?: string; text?: string }> }) {
  expect(result.contents).toHaveLength(1);
  return result.contents[0];
}

describe.each(ADAPTERS)('ops-console demo (%s)', (adapter) => {
  let running: RunningApp;
  let client: Client;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [AppModule] });
    client = await connectClient(running.mcpUrl);
  });

  afterAll(async () => {
    await client?.close();
    await running?.close();
  });

  describe('the admin server', () => {
    it('serves the admin tools at /admin/mcp, and only there; they stay admins only', async () => {
      const admin = await connectClient(new URL(`${running.baseUrl}/admin/mcp`));
      try {
        expect((await admin.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
          'decommission_service',
          'set_feature_flag',
        ]);
        const refused = await admin.callTool({
          name: 'set_feature_flag',
          arguments: { flag: 'cost-insights', enabled: true },
        });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toBe('set_feature_flag needs the admin role; ask an admin to run it.');
      } finally {
        await admin.close();
      }
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).not.toContain('decommission_service');
      expect(names).not.toContain('set_feature_flag');
    });
  });

  describe('tools', () => {
    it('lists the tools with schemas and annotations', async () => {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect([...byName.keys()].sort()).toEqual([
        'build_package',
        'connect_pagerduty',
        'deploy_release',
        'get_service',
        'incident_report',
        'list_services',
        'open_incident',
        'restart_service',
        'scale_service',
        'summarize_logs',
      ]);

      const list = byName.get('list_services')!;
      expect(list.annotations).toEqual({ readOnlyHint: true });
      expect(list.inputSchema.properties).toMatchObject({
        region: { type: 'string', description: expect.any(String) },
        status: { type: 'string', enum: ['running', 'degraded', 'stopped'] },
      });
      expect(list.inputSchema.required ?? []).toEqual([]);
      expect(list.outputSchema).toMatchObject({
        type: 'object',
        required: ['services'],
        properties: { services: { type: 'array', items: { $ref: '#/$defs/ServiceDto' } } },
        $defs: { ServiceDto: { required: ['name', 'status', 'version', 'region', 'owner', 'replicas'] } },
      });

      expect(byName.get('scale_service')!.inputSchema.properties).toMatchObject({
        replicas: { type: 'integer', minimum: 1, maximum: 50 },
      });
      expect(byName.get('restart_service')!.annotations).toMatchObject({ destructiveHint: true });
      expect(byName.get('restart_service')!.outputSchema).toBeUndefined();
    });

    it('list_services returns every service, or those matching the filters', async () => {
      const all = await client.callTool({ name: 'list_services', arguments: {} });
      expect(all.isError).toBeFalsy();
      const services = (all.structuredContent as { services: Array<{ name: string }> }).services;
      expect(services.map((service) => service.name)).toEqual([
        'auth-gateway',
        'checkout-api',
        'inventory-sync',
        'payments-worker',
        'search-indexer',
      ]);
      expect(JSON.parse(textOf(all))).toEqual(all.structuredContent);

      const filtered = await client.callTool({
        name: 'list_services',
        arguments: { region: 'us-east-1', status: 'degraded' },
      });
      expect(filtered.structuredContent).toEqual({
        services: [
          {
            name: 'search-indexer',
            status: 'degraded',
            version: '1.8.4',
            region: 'us-east-1',
            owner: 'discovery',
            replicas: 2,
          },
        ],
      });
    });

    it('get_service returns one service, and tells the model which names exist when it guesses wrong', async () => {
      const found = await client.callTool({ name: 'get_service', arguments: { name: 'auth-gateway' } });
      expect(found.structuredContent).toMatchObject({ name: 'auth-gateway', owner: 'identity', region: 'us-east-1' });

      const missing = await client.callTool({ name: 'get_service', arguments: { name: 'billing' } });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('No service named "billing"');
      expect(textOf(missing)).toContain('checkout-api');
    });

    it('scale_service validates replicas against the DTO (1..50, integer)', async () => {
      const scaled = await client.callTool({
        name: 'scale_service',
        arguments: { name: 'checkout-api', replicas: 12 },
      });
      expect(scaled.isError).toBeFalsy();
      expect(scaled.structuredContent).toMatchObject({ name: 'checkout-api', replicas: 12 });

      for (const replicas of [0, 51, 2.5, '3']) {
        const rejected = await client.callTool({
          name: 'scale_service',
          arguments: { name: 'checkout-api', replicas },
        });
        expect(rejected.isError, `replicas=${JSON.stringify(replicas)}`).toBe(true);
        expect(textOf(rejected)).toMatch(/Invalid arguments for tool "scale_service".*replicas/);
      }

      const noName = await client.callTool({ name: 'scale_service', arguments: { replicas: 3 } });
      expect(noName.isError).toBe(true);
      expect(textOf(noName)).toContain('name');
    });

    it('scale_service refuses a stopped service with advice, restart_service brings it back', async () => {
      const refused = await client.callTool({
        name: 'scale_service',
        arguments: { name: 'inventory-sync', replicas: 2 },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('restart_service');

      const restarted = await client.callTool({
        name: 'restart_service',
        arguments: { name: 'inventory-sync', reason: 'stuck consumer' },
      });
      expect(restarted.isError).toBeFalsy();
      expect(textOf(restarted)).toMatch(/^Restarted inventory-sync/);
      expect(restarted.content).toContainEqual(
        expect.objectContaining({ type: 'resource_link', uri: 'ops://services/inventory-sync/logs' }),
      );

      const logs = await client.readResource({ uri: 'ops://services/inventory-sync/logs' });
      expect(contentsOf(logs).text).toContain('restarted 1 replicas: stuck consumer');
      const scaled = await client.callTool({
        name: 'scale_service',
        arguments: { name: 'inventory-sync', replicas: 2 },
      });
      expect(scaled.structuredContent).toMatchObject({ status: 'running', replicas: 2 });
    });

    it('rejects an unknown status filter', async () => {
      const result = await client.callTool({ name: 'list_services', arguments: { status: 'on-fire' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('status');
    });
  });

  describe('prompts', () => {
    it('lists incident_summary with its arguments', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([
        expect.objectContaining({
          name: 'incident_summary',
          arguments: [
            expect.objectContaining({ name: 'service', required: true }),
            expect.objectContaining({ name: 'severity' }),
          ],
        }),
      ]);
    });

    it('fills the prompt from the catalog, with the logs embedded', async () => {
      const result = await client.getPrompt({
        name: 'incident_summary',
        arguments: { service: 'search-indexer', severity: 'sev2' },
      });
      expect(result.messages).toHaveLength(2);
      const [logs, request] = result.messages;
      expect(logs.content).toMatchObject({
        type: 'resource',
        resource: { uri: 'ops://services/search-indexer/logs', mimeType: 'text/plain' },
      });
      expect(request.content).toMatchObject({ type: 'text' });
      expect((request.content as { text: string }).text).toContain('sev2 incident summary for search-indexer');

      const defaulted = await client.getPrompt({ name: 'incident_summary', arguments: { service: 'auth-gateway' } });
      expect((defaulted.messages[1].content as { text: string }).text).toContain('sev3');
    });

    it('rejects a missing or unknown argument as invalid params', async () => {
      const cases: Array<Record<string, string>> = [
        {},
        { service: 'billing' },
        { service: 'auth-gateway', severity: 'sev9' },
      ];
      for (const args of cases) {
        const error = await client
          .getPrompt({ name: 'incident_summary', arguments: args })
          .catch((caught: unknown) => caught);
        expect(error, JSON.stringify(args)).toBeInstanceOf(ProtocolError);
        expect((error as ProtocolError).code).toBe(-32602);
      }
    });

    it('completes the service and severity arguments', async () => {
      const service = await client.complete({
        ref: { type: 'ref/prompt', name: 'incident_summary' },
        argument: { name: 'service', value: 'pay' },
      });
      expect(service.completion.values).toEqual(['payments-worker']);

      const severity = await client.complete({
        ref: { type: 'ref/prompt', name: 'incident_summary' },
        argument: { name: 'severity', value: 'sev' },
      });
      expect(severity.completion.values).toEqual(['sev1', 'sev2', 'sev3', 'sev4']);
    });
  });

  describe('resources', () => {
    it('lists the static resources and the templates', async () => {
      const { resources } = await client.listResources();
      expect(resources.map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual([
        { uri: 'ops://runbook', mimeType: 'text/markdown' },
        { uri: 'ops://services', mimeType: 'application/json' },
        // The skills' SKILL.md files (SEP-2640) and the deployment board's view (MCP Apps).
        { uri: 'skill://ops/safe-rollout/SKILL.md', mimeType: 'text/markdown' },
        { uri: 'skill://ops/triage-incident/SKILL.md', mimeType: 'text/markdown' },
        { uri: 'ui://ops-console/deployment-board', mimeType: 'text/html;profile=mcp-app' },
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      // Templates are listed most specific first (the order they are matched in), not alphabetically.
      expect(resourceTemplates.map(({ uriTemplate, mimeType }) => ({ uriTemplate, mimeType }))).toEqual(
        expect.arrayContaining([
          { uriTemplate: 'ops://services/{name}', mimeType: 'application/json' },
          { uriTemplate: 'ops://services/{name}/logs', mimeType: 'text/plain' },
          // Every file of a skill, read by its path (SEP-2640).
          expect.objectContaining({ uriTemplate: 'skill://ops/safe-rollout/{+file}' }),
          expect.objectContaining({ uriTemplate: 'skill://ops/triage-incident/{+file}' }),
        ]),
      );
      expect(resourceTemplates).toHaveLength(4);
    });

    it('reads the runbook and the catalog', async () => {
      const runbook = contentsOf(await client.readResource({ uri: 'ops://runbook' }));
      expect(runbook).toMatchObject({ uri: 'ops://runbook', mimeType: 'text/markdown' });
      expect(runbook.text).toMatch(/^# On-call runbook/);

      const catalog = contentsOf(await client.readResource({ uri: 'ops://services' }));
      expect(catalog.mimeType).toBe('application/json');
      expect(JSON.parse(catalog.text!).services).toHaveLength(5);
    });

    it('reads one service and its logs through the templates', async () => {
      const service = contentsOf(await client.readResource({ uri: 'ops://services/payments-worker' }));
      expect(service).toMatchObject({ uri: 'ops://services/payments-worker', mimeType: 'application/json' });
      expect(JSON.parse(service.text!)).toMatchObject({ name: 'payments-worker', owner: 'payments' });

      const logs = contentsOf(await client.readResource({ uri: 'ops://services/payments-worker/logs' }));
      expect(logs.mimeType).toBe('text/plain');
      expect(logs.text).toMatch(/INFO deployed version 2\.3\.1/);
    });

    it('answers an unknown service as resource not found', async () => {
      const error = await client.readResource({ uri: 'ops://services/billing' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect((error as ResourceNotFoundError).uri).toBe('ops://services/billing');
    });

    it('completes the name variable of both templates', async () => {
      for (const uri of ['ops://services/{name}', 'ops://services/{name}/logs']) {
        const result = await client.complete({
          ref: { type: 'ref/resource', uri },
          argument: { name: 'name', value: 'c' },
        });
        expect(result.completion.values).toEqual(['checkout-api']);
      }
    });
  });
});
