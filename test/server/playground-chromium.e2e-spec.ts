import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../apps/demo/src/app.module.js';
import {
  RELEASE_STEPS,
  ReleasePipeline,
  type Release,
  type ReleaseStep,
} from '../../apps/demo/src/deployments/index.js';
import { INCIDENT_STEP_MS } from '../../apps/demo/src/incidents/incident-investigation.service.js';
import { ServiceCatalog, ServiceStatus } from '../../apps/demo/src/services/index.js';
import { PlaygroundFixtureModule } from '../fixtures/playground.fixture.js';
import { type RunningApp, startApp } from '../support/app.factory.js';
import { freePort } from '../support/free-port.js';
import { connectClient } from '../support/mcp-client.factory.js';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from '../../libs/mcp/src/apps/apps.constants.js';
import { TASKS_EXTENSION } from '../../libs/mcp/src/protocol/task.constants.js';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oidc-provider.js';

/**
 * The playground (docs/playground.md) in headless Chromium, as a newcomer uses it: the demo console opened at its
 * endpoint lists its tools, prompts, resources and templates; a call shows its progress bar live and its MCP App view;
 * a URL step and a form are answered in the page (real MRTR rounds); a task is followed to its question, answered and
 * completed; a listen stream opens; every exchange shows as raw JSON-RPC. With `auth`, the page signs in through the
 * server's Protected Resource Metadata against the real authorization server (oidc-provider: its login and consent
 * pages, authorization code + PKCE from the page). The page runs under its own CSP: any violation fails the test.
 * Screenshots: test-results/playground/ (a few are copied to docs/images/).
 *
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`; `npm test` installs it).
 */

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = 'test-results/playground';
const UI_WAIT_MS = 15_000;

/** The release pipeline with its first two steps instant and the rest held until the test opens the gate. */
class GatedPipeline extends ReleasePipeline {
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));

  open(): void {
    this.release();
  }

  override async run(step: ReleaseStep, _release: Release, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (RELEASE_STEPS.indexOf(step) < 2) return;
    await Promise.race([
      this.gate,
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
  }
}

let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  // The deployment board as the demo serves it.
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

/**
 * A page of the playground, with every CSP violation, page error and console error it reports. Failed loads are
 * Chromium's own notes, and only count on the endpoint's origin, where a 401 is the challenge the page answers by
 * signing in (the authorization server's pages are not the playground's).
 */
async function openPlayground(url: URL | string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems: string[] = [];
  const origin = new URL(url).origin;
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const failedLoad = message.text().startsWith('Failed to load resource');
    if (failedLoad && (!message.location().url.startsWith(origin) || message.text().includes('status of 401'))) return;
    problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  await page.goto(String(url));
  return { page, problems };
}

const exchangesOf = (page: Page) =>
  page.evaluate(() =>
    (
      window as unknown as {
        mcpPlayground: {
          log: {
            exchanges: { value: Array<{ method: string; messages: Array<{ message: Record<string, unknown> }> }> };
          };
        };
      }
    ).mcpPlayground.log.exchanges.value.map((exchange) => ({
      method: exchange.method,
      messages: exchange.messages.map((entry) => entry.message),
    })),
  );

describe('the playground in Chromium, against the demo console', () => {
  let running: RunningApp;
  let pipeline: GatedPipeline;
  let catalog: ServiceCatalog;
  const pages: Page[] = [];

  beforeAll(async () => {
    pipeline = new GatedPipeline();
    running = await startApp(
      'express',
      { imports: [AppModule] },
      {
        customize: (builder) =>
          builder.overrideProvider(ReleasePipeline).useValue(pipeline).overrideProvider(INCIDENT_STEP_MS).useValue(150),
      },
    );
    catalog = running.app.get(ServiceCatalog);
  });
  afterAll(async () => {
    for (const page of pages) await page.close().catch(() => undefined);
    await running?.close();
  });

  async function open(): Promise<{ page: Page; problems: string[] }> {
    const opened = await openPlayground(running.mcpUrl);
    pages.push(opened.page);
    await opened.page.locator('[data-testid="catalog"]').waitFor({ timeout: UI_WAIT_MS });
    return opened;
  }

  it('lists the tools, prompts, resources and templates (every page of each list) and shows the raw exchanges', async () => {
    const { page, problems } = await open();
    await expect(page.locator('[data-testid="server"]').textContent()).resolves.toContain('Operations console');
    const count = (tab: string) => page.locator(`[data-tab="${tab}"] .count`).textContent();
    // Every tool the demo lists to an anonymous caller, every page (the demo gains tools; the page must show them all).
    await expect(count('tool')).resolves.toBe(String(await listedToolCount(running.mcpUrl)));
    await expect(count('prompt')).resolves.not.toBe('0');
    await expect(count('resource')).resolves.not.toBe('0');
    await expect(count('template')).resolves.not.toBe('0');
    await expect(page.locator('.items [data-item="deploy_release"]').count()).resolves.toBe(1);
    await page.locator('[data-item="list_services"]').click();
    await page.screenshot({ path: `${SCREENSHOTS}/catalog.png` });

    const exchanges = await exchangesOf(page);
    const methods = exchanges.map((exchange) => exchange.method);
    expect(methods).toEqual(
      expect.arrayContaining([
        'server/discover',
        'tools/list',
        'prompts/list',
        'resources/list',
        'resources/templates/list',
      ]),
    );
    // Every request carries the 2026-07-28 envelope, and the page declares what it can do.
    const discover = exchanges.find((exchange) => exchange.method === 'server/discover')!;
    expect(discover.messages[0]).toMatchObject({
      jsonrpc: '2.0',
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: { form: {}, url: {} },
            extensions: { 'io.modelcontextprotocol/tasks': {} },
          },
        },
      },
    });
    expect(discover.messages[1]).toMatchObject({
      result: { resultType: 'complete', supportedVersions: expect.arrayContaining(['2026-07-28']) },
    });
    // The raw panel shows them.
    await page.locator('.exchange[data-method="server/discover"] summary').click();
    await expect(page.locator('.exchange[data-method="server/discover"] .wire').count()).resolves.toBe(2);
    expect(problems).toEqual([]);
  }, 60_000);

  it('calls a tool from its form with a live progress bar and its MCP App view, then shows the result', async () => {
    const { page, problems } = await open();
    const [service] = catalog.list().filter((candidate) => candidate.status !== ServiceStatus.Stopped);
    await page.locator('[data-item="deploy_release"]').click();
    await page
      .locator('#tool-deploy_release\\.name')
      .selectOption({ label: service.name })
      .catch(async () => {
        await page.locator('#tool-deploy_release\\.name').fill(service.name);
      });
    await page.locator('#tool-deploy_release\\.version').fill('9.9.9');
    await page.locator('[data-testid="call-tool"]').click();

    // Two steps of six are done and the third is held: the bar stands at a third, live, while the call runs.
    const progress = page.locator('[data-testid="progress"]');
    await progress.locator('progress').waitFor({ timeout: UI_WAIT_MS });
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid="progress"] progress')?.getAttribute('value')) > 0,
      undefined,
      { timeout: UI_WAIT_MS },
    );
    await expect(page.locator('[data-testid="call"]').getAttribute('data-phase')).resolves.toBe('running');
    // The tool's view runs two frames down (the sandbox proxy, then the view), and shows the rollout too.
    const view = page.frameLocator('[data-testid="app-frame"]').frameLocator('iframe');
    await view.locator('#board[data-status="running"]').waitFor({ timeout: UI_WAIT_MS });
    await page.screenshot({ path: `${SCREENSHOTS}/tool-call-progress.png` });

    pipeline.open();
    await page.locator('[data-testid="call"][data-phase="done"]').waitFor({ timeout: UI_WAIT_MS });
    await expect(page.locator('[data-testid="result"]').textContent()).resolves.toContain('9.9.9');
    await view.locator('#board[data-status="succeeded"]').waitFor({ timeout: UI_WAIT_MS });
    await page.screenshot({ path: `${SCREENSHOTS}/tool-call-done.png` });
    expect(catalog.find(service.name)?.version).toBe('9.9.9');

    // The call streamed: progress notifications on the call's own SSE response, the result last.
    const exchanges = await exchangesOf(page);
    const call = exchanges.find(
      (exchange) =>
        exchange.method === 'tools/call' && (exchange.messages[0].params as { name: string }).name === 'deploy_release',
    )!;
    expect(call.messages.filter((message) => message.method === 'notifications/progress').length).toBeGreaterThan(1);
    expect(call.messages.at(-1)).toHaveProperty('result');
    // The view read itself and polled the app-only status tool through the page's client.
    expect(exchanges.some((exchange) => exchange.method === 'resources/read')).toBe(true);
    expect(
      exchanges.some(
        (exchange) =>
          exchange.method === 'tools/call' &&
          (exchange.messages[0].params as { name: string }).name === 'deployment_status',
      ),
    ).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);

  it('answers a URL step in the page: the retry carries inputResponses and the requestState', async () => {
    const { page, problems } = await open();
    await page.locator('[data-item="connect_pagerduty"]').click();
    await page.locator('[data-testid="call-tool"]').click();
    const form = page.locator('[data-testid="input-form"]');
    await form.waitFor({ timeout: UI_WAIT_MS });
    await expect(form.textContent()).resolves.toContain('Sign in to PagerDuty');
    await page.screenshot({ path: `${SCREENSHOTS}/url-step.png` });
    const popup = page.waitForEvent('popup');
    await form.locator('button', { hasText: 'Open the page' }).click();
    await (await popup).close();
    await form.locator('button[type="submit"]').click();
    await page.locator('[data-testid="call"][data-phase="done"]').waitFor({ timeout: UI_WAIT_MS });
    await expect(page.locator('[data-testid="result"]').textContent()).resolves.toContain('sign-in page is open');

    const calls = (await exchangesOf(page)).filter((exchange) => exchange.method === 'tools/call').reverse();
    expect(calls).toHaveLength(2);
    const first = calls[0].messages.at(-1) as {
      result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    };
    expect(first.result.resultType).toBe('input_required');
    expect(calls[1].messages[0]).toMatchObject({
      params: {
        name: 'connect_pagerduty',
        inputResponses: { 'sign-in': { action: 'accept' } },
        requestState: first.result.requestState,
      },
    });
    expect(problems).toEqual([]);
  }, 60_000);

  /** Calls incident_report (a task) for the first service, from its form. */
  async function startIncidentReport(page: Page): Promise<void> {
    const [service] = catalog.list();
    await page.locator('[data-item="incident_report"]').click();
    await page.locator('#tool-incident_report\\.service').fill(service.name);
    await page.locator('[data-testid="call-tool"]').click();
  }

  it('follows a task: its status, its question answered in the page, its result', async () => {
    const { page, problems } = await open();
    await startIncidentReport(page);
    await page.locator('[data-testid="task"]').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid="task"][data-status="input_required"]').waitFor({ timeout: UI_WAIT_MS });
    const form = page.locator('[data-testid="input-form"]');
    await form.waitFor({ timeout: UI_WAIT_MS });
    await form.locator('input[type="checkbox"]').check();
    await page.screenshot({ path: `${SCREENSHOTS}/task-input.png` });
    await form.locator('button[type="submit"]').click();
    await page.locator('[data-testid="task"][data-status="completed"]').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid="call"][data-phase="done"]').waitFor({ timeout: UI_WAIT_MS });
    await expect(page.locator('[data-testid="result"]').textContent()).resolves.toContain('Recent logs:');
    await page.screenshot({ path: `${SCREENSHOTS}/task-done.png` });

    const methods = (await exchangesOf(page)).map((exchange) => exchange.method);
    expect(methods).toEqual(expect.arrayContaining(['tools/call', 'tasks/get', 'tasks/update']));
    expect(problems).toEqual([]);
  }, 60_000);

  it('cancels a task from the page', async () => {
    const { page, problems } = await open();
    await startIncidentReport(page);
    await page.locator('[data-testid="task"]').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid="call"] header button', { hasText: 'Cancel' }).click();
    await page.locator('[data-testid="call"][data-phase="cancelled"]').waitFor({ timeout: UI_WAIT_MS });
    expect((await exchangesOf(page)).map((exchange) => exchange.method)).toContain('tasks/cancel');
    expect(problems).toEqual([]);
  }, 60_000);

  it('opens a listen stream and shows what arrives on it', async () => {
    const { page, problems } = await open();
    await page.locator('.activity [data-tab="listen"]').click();
    await page.locator('[data-testid="listen-toggle"]').click();
    await page.locator('[data-testid="listen"][data-phase="open"]').waitFor({ timeout: UI_WAIT_MS });
    await page
      .locator('.heard li', { hasText: 'notifications/subscriptions/acknowledged' })
      .waitFor({ timeout: UI_WAIT_MS });
    await page.screenshot({ path: `${SCREENSHOTS}/listen.png` });
    await page.locator('[data-testid="listen-toggle"]').click();
    await page.locator('[data-testid="listen"][data-phase="closed"]').waitFor({ timeout: UI_WAIT_MS });
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('the playground in Chromium, signing in (auth)', () => {
  let as: TestAuthorizationServer;
  let running: RunningApp;
  const CLIENT_ID = 'nest-mcp-playground';

  beforeAll(async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    // A public client whose redirect URI is the endpoint itself: the page answers it.
    as = await startAuthorizationServer({
      resource,
      scopes: ['mcp:read', 'mcp:write'],
      publicClients: [{ clientId: CLIENT_ID, redirectUris: [resource] }],
    });
    running = await startApp(
      'express',
      {
        imports: [
          PlaygroundFixtureModule.serve({
            auth: { resource, authorizationServers: [as.issuer], scopesSupported: ['mcp:read', 'mcp:write'] },
            playground: { clientId: CLIENT_ID },
            // One tool per page: the page follows nextCursor.
            pageSize: 1,
          }),
        ],
      },
      { port },
    );
  });
  afterAll(async () => {
    await running?.close();
    await as?.close();
  });

  it("signs in with authorization code + PKCE through the server's metadata, then calls a tool with a form round", async () => {
    const { page, problems } = await openPlayground(running.mcpUrl);
    try {
      await page.locator('[data-testid="sign-in"]').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.locator('#client-id').inputValue()).resolves.toBe(CLIENT_ID);
      await page.screenshot({ path: `${SCREENSHOTS}/sign-in.png` });
      await page.locator('[data-testid="sign-in-button"]').click();

      // oidc-provider's own pages: login (any user name and password), then consent.
      await page.waitForURL((url) => url.origin === new URL(as.issuer).origin, { timeout: UI_WAIT_MS });
      await page.locator('input[name="login"]').fill('alice');
      await page.locator('input[name="password"]').fill('any');
      await page.locator('button[type="submit"]').click();
      await page.locator('button[type="submit"]', { hasText: 'Continue' }).click();

      // Back at the endpoint with a code: the page redeems it and lists the tools with the token.
      await page.waitForURL((url) => url.href === running.mcpUrl.href, { timeout: UI_WAIT_MS });
      await page.locator('[data-testid="catalog"]').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.locator('[data-tab="tool"] .count').textContent()).resolves.toBe('2');
      expect(as.requests).toContain('POST /token');
      const lists = (await exchangesOf(page)).filter((exchange) => exchange.method === 'tools/list').reverse();
      expect(lists).toHaveLength(2);
      const firstPage = lists[0].messages.at(-1) as { result: { nextCursor: string } };
      expect(lists[1].messages[0]).toMatchObject({ params: { cursor: firstPage.result.nextCursor } });

      // A form built from the input schema (defaults filled in), then a form elicitation answered in the page.
      await page.locator('[data-item="plan_trip"]').click();
      await expect(page.locator('#tool-plan_trip\\.city').inputValue()).resolves.toBe('Lyon');
      await expect(page.locator('#tool-plan_trip\\.nights').inputValue()).resolves.toBe('2');
      await page.locator('#tool-plan_trip\\.traveller\\.name').fill('Ada');
      await page.locator('#tool-plan_trip\\.transport').selectOption('train');
      await page.locator('#tool-plan_trip\\.pet').check();
      await page.screenshot({ path: `${SCREENSHOTS}/tool-form.png` });
      await page.locator('[data-testid="call-tool"]').click();
      await page.locator('[data-testid="call"][data-phase="done"]').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.locator('[data-testid="result"]').textContent()).resolves.toContain(
        '"traveller":{"name":"Ada"}',
      );

      await page.locator('[data-item="ship"]').click();
      await page.locator('#tool-ship\\.version').fill('2.0.0');
      await page.locator('[data-testid="call-tool"]').click();
      const form = page.locator('[data-testid="input-form"]');
      await form.waitFor({ timeout: UI_WAIT_MS });
      await form.locator('#input-confirm\\.confirm').check();
      await form.locator('#input-confirm\\.note').fill('first light');
      await page.screenshot({ path: `${SCREENSHOTS}/elicitation-form.png` });
      await form.locator('button[type="submit"]').click();
      await page.locator('[data-testid="call"][data-phase="done"]').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.locator('[data-testid="result"]').textContent()).resolves.toContain(
        '2.0.0 shipped (first light) by alice',
      );

      // Every request after the sign-in carried the token.
      const sent = await page.evaluate(
        () => (window as unknown as { mcpPlayground: { token: { value?: string } } }).mcpPlayground.token.value,
      );
      expect(sent).toMatch(/^ey/);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('takes a pasted token instead', async () => {
    const { access_token } = await as.clientCredentialsToken({ resource: running.mcpUrl.href, scope: 'mcp:read' });
    const { page, problems } = await openPlayground(running.mcpUrl);
    try {
      await page.locator('[data-testid="sign-in"]').waitFor({ timeout: UI_WAIT_MS });
      await page.locator('#token').fill(access_token);
      await page.locator('button', { hasText: 'Use this token' }).click();
      await page.locator('[data-testid="catalog"]').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.locator('[data-tab="tool"] .count').textContent()).resolves.toBe('2');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});

/**
 * How many tools the server lists to a caller without credentials that declares what the page declares (form and URL
 * elicitation, tasks, MCP App views: task-only tools are listed only to task-capable clients), over every page.
 */
async function listedToolCount(url: URL): Promise<number> {
  const capabilities = {
    elicitation: { form: {}, url: {} },
    extensions: { [TASKS_EXTENSION]: {}, [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } },
  };
  const client = await connectClient(url, { capabilities });
  try {
    let total = 0;
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      total += page.tools.length;
      cursor = page.nextCursor;
    } while (cursor);
    return total;
  } finally {
    await client.close();
  }
}
