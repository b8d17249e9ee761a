import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../apps/demo/src/app.module.js';
import { RolloutTracker } from '../../apps/demo/src/deployment-board/index.js';
import {
  RELEASE_STEPS,
  ReleasePipeline,
  type Release,
  type ReleaseStep,
} from '../../apps/demo/src/deployments/index.js';
import { ServiceCatalog, ServiceStatus } from '../../apps/demo/src/services/index.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';
import { startAppsHost, type AppsHost } from '../support/apps-host.server.js';

/**
 * The demo's MCP App (the deployment board of `deploy_release`) in headless Chromium, through the official ext-apps
 * host bridge: a host page (test/fixtures/apps-host) connects the official client to the real demo server, reads the
 * tool's `ui://` view and renders it in a sandbox proxy on another origin (CSP from the view's `_meta.ui`), sends it the
 * tool input and, when the call ends, the tool result. Meanwhile the board polls the app-only `deployment_status` and
 * its Cancel button calls `cancel_deployment`, both forwarded by the host to the server. Run on both adapters and
 * both wires. Screenshots: test-results/apps/.
 *
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it).
 */

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = 'test-results/apps';
const WIRES = ['modern', 'legacy'] as const;
/** How long a step of the UI may take to show (bounded waits, not timing assertions). */
const UI_WAIT_MS = 15_000;

/** The release pipeline with its first two steps instant and the third held until the test opens it per service. */
class GatedPipeline extends ReleasePipeline {
  private readonly gates = new Map<string, { open: Promise<void>; release: () => void }>();

  open(service: string): void {
    this.gate(service).release();
  }

  override async run(step: ReleaseStep, release: Release, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (RELEASE_STEPS.indexOf(step) < 2) return;
    await new Promise<void>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      void this.gate(release.service).open.then(() => {
        signal.removeEventListener('abort', abort);
        resolve();
      });
    });
  }

  private gate(service: string) {
    let gate = this.gates.get(service);
    if (!gate) {
      let release!: () => void;
      const open = new Promise<void>((resolve) => (release = resolve));
      gate = { open, release };
      this.gates.set(service, gate);
    }
    return gate;
  }
}

/** What the host page exposes (test/fixtures/apps-host/host.page.ts). */
interface HostState {
  phase: string;
  viewCalls: string[];
  refused: string[];
  sizeChanges: number;
  appInfo?: { name?: string };
  result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ text?: string }> };
  error?: string;
}

let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  // The board as the demo serves it: the single-file bundle of apps/demo/views/deployment-board.
  execFileSync(process.execPath, ['scripts/build-demo-views.mjs'], { stdio: 'pipe' });
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe.each(ADAPTERS.flatMap((adapter) => WIRES.map((wire) => [adapter, wire] as const)))(
  'the deployment board in Chromium (%s, %s wire)',
  (adapter, wire) => {
    let running: RunningApp;
    let host: AppsHost;
    let pipeline: GatedPipeline;
    let catalog: ServiceCatalog;
    let rollouts: RolloutTracker;
    const pages: Page[] = [];
    /** Screenshots are taken once, on the first combination. */
    const screenshots = adapter === ADAPTERS[0] && wire === WIRES[0];

    beforeAll(async () => {
      pipeline = new GatedPipeline();
      running = await startApp(
        adapter,
        { imports: [AppModule] },
        { customize: (builder) => builder.overrideProvider(ReleasePipeline).useValue(pipeline) },
      );
      catalog = running.app.get(ServiceCatalog);
      rollouts = running.app.get(RolloutTracker);
      host = await startAppsHost(running.mcpUrl);
    });
    afterAll(async () => {
      for (const page of pages) await page.close().catch(() => undefined);
      await host?.close();
      await running?.close();
    });

    /** Two services that can be deployed (not stopped). */
    const deployable = () => catalog.list().filter((service) => service.status !== ServiceStatus.Stopped);

    async function openBoard(
      service: string,
      version: string,
    ): Promise<{ page: Page; view: FrameLocator; problems: string[] }> {
      const page = await browser.newPage({ viewport: { width: 660, height: 560 } });
      pages.push(page);
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(host.pageUrl('deploy_release', { name: service, version }, wire));
      // The view runs two frames down: the sandbox proxy (another origin), then the view's own frame.
      return { page, view: page.frameLocator('#sandbox').frameLocator('iframe'), problems };
    }

    const hostState = (page: Page) => page.evaluate(() => (window as unknown as { appsHost: HostState }).appsHost);

    async function waitForPhase(page: Page, phase: string): Promise<HostState> {
      await page
        .waitForFunction(
          (wanted) => {
            const state = (window as unknown as { appsHost?: HostState }).appsHost;
            return state?.phase === wanted || state?.phase === 'failed';
          },
          phase,
          { timeout: UI_WAIT_MS },
        )
        .catch(async (error: Error) => {
          throw new Error(
            `the host never reached "${phase}": ${JSON.stringify(await hostState(page))} (${error.message})`,
          );
        });
      const state = await hostState(page);
      expect(state.error, 'the host page failed').toBeUndefined();
      return state;
    }

    it('shows the rollout live, and cancels it from the view through the host', async () => {
      const [service] = deployable();
      const before = service.version;
      const { page, view, problems } = await openBoard(service.name, '9.9.9');

      // Live progress: the board polls deployment_status (app-only) through the host while deploy_release runs.
      await view
        .locator('#board[data-status="running"] #completed', { hasText: '2/6 steps' })
        .waitFor({ timeout: UI_WAIT_MS });
      await expect(view.locator('#summary').textContent()).resolves.toBe(`${service.name}: ${before} → 9.9.9`);
      await expect(view.locator('#steps li[data-state="done"]').count()).resolves.toBe(2);
      await expect(view.locator('#steps li[data-state="current"]').textContent()).resolves.toBe(RELEASE_STEPS[2]);
      if (screenshots) await page.locator('#frame').screenshot({ path: `${SCREENSHOTS}/deployment-board.png` });

      await view.locator('#cancel').click();
      await view.locator('#board[data-status="cancelled"]').waitFor({ timeout: UI_WAIT_MS });
      const state = await waitForPhase(page, 'result-sent');

      // The view got the call's result: an error result saying where the rollout stopped.
      await expect(view.locator('#message').textContent()).resolves.toContain(`Deploy of 9.9.9 cancelled at step 3/6`);
      expect(state.result?.isError).toBe(true);
      // It called the server's tools through the host, which forwarded them (and refused nothing).
      expect(state.viewCalls).toContain('deployment_status');
      expect(state.viewCalls).toContain('cancel_deployment');
      expect(state.refused).toEqual([]);
      expect(host.requests).toContainEqual({ method: 'tools/call', target: 'cancel_deployment' });
      expect(host.requests).toContainEqual({ method: 'resources/read', target: 'ui://ops-console/deployment-board' });
      expect(state.appInfo?.name).toBe('ops-console-deployment-board');
      expect(state.sizeChanges).toBeGreaterThan(0);
      // The server ran the cancel: the rollout stopped at step 3, the service kept its version.
      expect(rollouts.find(service.name)?.state).toMatchObject({ status: 'cancelled', completed: 2 });
      expect(catalog.find(service.name)?.version).toBe(before);
      expect(problems).toEqual([]);
    }, 60_000);

    it('shows a rollout through to its result, then tears the view down', async () => {
      const [, service] = deployable();
      const before = service.version;
      const { page, view, problems } = await openBoard(service.name, '9.1.0');
      await view
        .locator('#board[data-status="running"] #completed', { hasText: '2/6 steps' })
        .waitFor({ timeout: UI_WAIT_MS });

      pipeline.open(service.name);
      await view
        .locator('#board[data-status="succeeded"] #completed', { hasText: '6/6 steps' })
        .waitFor({ timeout: UI_WAIT_MS });
      const state = await waitForPhase(page, 'result-sent');
      await expect(view.locator('#message').textContent()).resolves.toBe(
        `${service.name} now runs 9.1.0 (was ${before}).`,
      );
      await expect(view.locator('#cancel').isDisabled()).resolves.toBe(true);
      if (screenshots)
        await page.locator('#frame').screenshot({ path: `${SCREENSHOTS}/deployment-board-succeeded.png` });

      expect(state.result).toMatchObject({
        structuredContent: { service: service.name, fromVersion: before, toVersion: '9.1.0', steps: 6 },
      });
      expect(state.result?.isError).toBeFalsy();
      expect(catalog.find(service.name)?.version).toBe('9.1.0');
      expect(rollouts.find(service.name)?.state).toMatchObject({ status: 'succeeded', completed: 6 });

      // ui/resource-teardown: the view answers {} (its onteardown ran) and stops polling.
      await expect(
        page.evaluate(() => (window as unknown as { appsHost: { teardown(): Promise<unknown> } }).appsHost.teardown()),
      ).resolves.toEqual({});
      expect(problems).toEqual([]);
    }, 60_000);
  },
);
