import { OPS_ADMIN_SERVER, OPS_CONSOLE_SERVER } from '../src/console-servers.constants.js';
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpTestingClient, McpTestingError, type McpTestingRequestOptions } from 'nest-mcp/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPS_ADMIN_ROLE, OPS_ROLE_HEADER } from '../src/access/index.js';
import { AppModule } from '../src/app.module.js';
import { RELEASE_STEPS, ReleasePipeline, type Release, type ReleaseStep } from '../src/deployments/index.js';
import { PAGERDUTY_SIGN_IN_URL, PagerDutyConnection } from '../src/integrations/index.js';

/**
 * The console's interactive features (long jobs, confirmations, sign-in, admin tools, runtime registration),
 * tested with nest-mcp/testing in-process and over HTTP on both adapters. The release pipeline is replaced by a fake
 * that is instant, and can fail or hang at a chosen step.
 */

// #region docs:fake-pipeline
/** Stands in for the CI/CD system: records steps, fails or waits for cancellation where told. */
class FakeReleasePipeline {
  readonly steps = RELEASE_STEPS;
  readonly ran: string[] = [];
  failAt?: ReleaseStep;
  holdAt?: ReleaseStep;

  async run(step: ReleaseStep, { service, version }: Release, signal: AbortSignal): Promise<void> {
    this.ran.push(`${service}@${version}: ${step}`);
    if (step === this.failAt) throw new Error('migration 042 timed out');
    if (step === this.holdAt) {
      signal.throwIfAborted();
      await new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
    }
  }
}

// #endregion docs:fake-pipeline

const ADMIN = { headers: { [OPS_ROLE_HEADER]: OPS_ADMIN_ROLE } };
const CAN_ELICIT = { elicitation: { form: {}, url: {} } };

type Mode = 'in-process' | 'express' | 'fastify';

describe.each<Mode>(['in-process', 'express', 'fastify'])('ops console with nest-mcp/testing (%s)', (mode) => {
  const pipeline = new FakeReleasePipeline();
  let moduleRef: TestingModule;
  let app: INestApplication | undefined;
  let connect: (options?: McpTestingRequestOptions) => Promise<McpTestingClient>;
  /** A client of the admin server (`/admin/mcp`), where decommission_service and set_feature_flag are. */
  const connectAdmin = (options: McpTestingRequestOptions = {}) => connect({ server: OPS_ADMIN_SERVER, ...options });

  beforeAll(async () => {
    // #region docs:override-pipeline
    moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(ReleasePipeline)
      .useValue(pipeline)
      .compile();
    // #endregion docs:override-pipeline
    if (mode === 'in-process') {
      connect = (options) => McpTestingClient.create(moduleRef, { server: OPS_CONSOLE_SERVER, ...options });
      return;
    }
    app =
      mode === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    connect = (options) => McpTestingClient.connect(app!, { server: OPS_CONSOLE_SERVER, ...options });
  });
  afterAll(async () => {
    await (app ?? moduleRef)?.close();
  });
  beforeEach(() => {
    pipeline.failAt = undefined;
    pipeline.holdAt = undefined;
  });

  /** The log lines of a service, through its resource. */
  async function logsOf(client: McpTestingClient, service: string): Promise<string> {
    return (await client.readResource(`ops://services/${service}/logs`)).text();
  }

  describe('deploy_release (a long job)', () => {
    it('rolls out step by step, reporting progress and logs, and returns the deployment', async () => {
      const client = await connect({ logLevel: 'info' });

      const result = await client.callTool('deploy_release', { name: 'checkout-api', version: '4.13.0' });

      expect(result.structured()).toEqual({
        service: 'checkout-api',
        fromVersion: '4.12.0',
        toVersion: '4.13.0',
        steps: 6,
      });
      expect(result.progress.map(({ progress }) => progress)).toEqual([1, 2, 3, 4, 5, 6].map((step) => step / 6));
      expect(result.progress.map(({ message }) => message)).toEqual([...RELEASE_STEPS]);
      expect(result.logs).toHaveLength(6);
      expect(result.logs[2]).toEqual({
        level: 'info',
        logger: 'deploy_release',
        data: 'checkout-api 4.13.0: step 3/6 (Run the database migrations)',
      });
      expect((await client.callTool('get_service', { name: 'checkout-api' })).structured()).toMatchObject({
        version: '4.13.0',
      });
    });

    it('stops at a failed step and keeps the running version', async () => {
      const client = await connect();
      pipeline.failAt = 'Run the database migrations';

      const result = await client.callTool('deploy_release', { name: 'auth-gateway', version: '7.1.0' });

      expect(result.isError).toBe(true);
      expect(result.text()).toBe(
        'Deploy of 7.1.0 failed: migration 042 timed out at step 3/6 (Run the database migrations). auth-gateway still runs 7.0.2.',
      );
      expect(result.progress).toHaveLength(2);
      expect(await logsOf(client, 'auth-gateway')).toContain(
        'deploy of 7.1.0 failed: migration 042 timed out at step 3/6',
      );
    });

    it('stops when the call is cancelled half-way', async () => {
      const client = await connect();
      pipeline.holdAt = 'Shift the traffic';
      const abort = new AbortController();

      const call = client.callTool(
        'deploy_release',
        { name: 'payments-worker', version: '2.4.0' },
        {
          signal: abort.signal,
          onProgress: ({ message }) => message === 'Deploy the canary' && abort.abort(),
        },
      );

      await expect(call).rejects.toThrow();
      await expect
        .poll(() => logsOf(client, 'payments-worker'))
        .toContain('deploy of 2.4.0 cancelled at step 5/6 (Shift the traffic)');
      expect((await client.callTool('get_service', { name: 'payments-worker' })).structured()).toMatchObject({
        version: '2.3.1',
      });
    });

    it('validates the version against the DTO', async () => {
      const result = await (await connect()).callTool('deploy_release', { name: 'checkout-api', version: 'latest' });
      expect(result.isError).toBe(true);
      expect(result.text()).toBe(
        'Invalid arguments for tool "deploy_release": version: must be a semver version such as 4.13.0',
      );
    });
  });

  describe('decommission_service (admin only, confirmed by a form)', () => {
    it('is refused to a non-admin', async () => {
      const result = await (await connectAdmin({ capabilities: CAN_ELICIT })).callTool('decommission_service', {
        name: 'inventory-sync',
      });
      expect(result.isError).toBe(true);
      expect(result.text()).toBe('decommission_service needs the admin role; ask an admin to run it.');
    });

    // #region docs:decommission
    it('asks the user to type the name, then removes the service', async () => {
      const client = await connectAdmin({ ...ADMIN, capabilities: CAN_ELICIT });
      client.onElicit((request) => {
        expect(request.params.message).toBe(
          'Decommission inventory-sync? Its 0 replicas and its logs are deleted for good.',
        );
        expect(request.params.requestedSchema).toMatchObject({ required: ['confirmName'] });
        return { action: 'accept', content: { confirmName: 'inventory-sync', reason: 'replaced by stock-sync' } };
      });

      const result = await client.callTool('decommission_service', { name: 'inventory-sync' });

      expect(result.text()).toBe('Decommissioned inventory-sync (replaced by stock-sync).');
      // list_services is on the server for everyone (/mcp); both servers share the service catalog.
      const { services } = (await (await connect()).callTool('list_services')).structured<{
        services: { name: string }[];
      }>();
      expect(services.map((service) => service.name)).not.toContain('inventory-sync');
    });
    // #endregion docs:decommission

    it('keeps the service when the typed name does not match, or the user declines', async () => {
      const client = await connectAdmin({ ...ADMIN, capabilities: CAN_ELICIT });
      client.answerWith({ action: 'accept', content: { confirmName: 'search' } }, { action: 'decline' });
      expect((await client.callTool('decommission_service', { name: 'search-indexer' })).text()).toBe(
        'Kept search-indexer: "search" does not match the service name.',
      );
      expect((await client.callTool('decommission_service', { name: 'search-indexer' })).text()).toBe(
        'Kept search-indexer: the user did not confirm.',
      );
    });

    it('refuses without asking when the client cannot show forms', async () => {
      const result = await (await connectAdmin(ADMIN)).callTool('decommission_service', { name: 'search-indexer' });
      expect(result.isError).toBe(true);
      expect(result.text()).toContain('this client cannot show forms');
      expect(result.inputRequests).toEqual([]);
    });
  });

  describe('connect_pagerduty (URL-mode sign-in)', () => {
    it('gives the link to a client that cannot open URLs', async () => {
      const result = await (await connect({ capabilities: { elicitation: { form: {} } } })).callTool(
        'connect_pagerduty',
      );
      expect(result.text()).toContain(PAGERDUTY_SIGN_IN_URL);
      expect(result.rounds).toBe(1);
    });

    it('sends the user to the sign-in page', async () => {
      const client = await connect({ capabilities: CAN_ELICIT });
      client.onElicit(({ params }) => {
        expect(params).toMatchObject({ mode: 'url', url: PAGERDUTY_SIGN_IN_URL });
        return { action: 'accept' };
      });

      const result = await client.callTool('connect_pagerduty');

      expect(result.text()).toMatch(/^The PagerDuty sign-in page is open/);
      expect(moduleRef.get(PagerDutyConnection).status).toBe('signing-in');
    });
  });

  describe('set_feature_flag (admin only, registers a tool at run time)', () => {
    it('is refused to a non-admin', async () => {
      const result = await (await connectAdmin()).callTool('set_feature_flag', {
        flag: 'cost-insights',
        enabled: true,
      });
      expect(result.text()).toBe('set_feature_flag needs the admin role; ask an admin to run it.');
    });

    // #region docs:runtime-registration
    it('adds and removes estimate_costs, and tells listening clients', async () => {
      // The switch is on the admin server; the tool it adds, and the news of it, on the server for everyone.
      const admin = await connectAdmin(ADMIN);
      const client = await connect();
      const stream = await client.listen({ toolsListChanged: true });
      try {
        const enabled = await admin.callTool('set_feature_flag', { flag: 'cost-insights', enabled: true });
        expect(enabled.text()).toBe('cost-insights is now on.');
        await stream.next('notifications/tools/list_changed');
        expect((await client.listTools()).map((tool) => tool.name)).toContain('estimate_costs');
        const estimate = await client.callTool('estimate_costs', { name: 'checkout-api' });
        expect(estimate.structured()).toMatchObject({ currency: 'USD', totalMonthly: 6 * 38.5 });

        await admin.callTool('set_feature_flag', { flag: 'cost-insights', enabled: false });
        await stream.next('notifications/tools/list_changed');
        await expect(client.callTool('estimate_costs')).rejects.toBeInstanceOf(McpTestingError);
      } finally {
        await stream.close();
      }
    });
    // #endregion docs:runtime-registration
  });
});
