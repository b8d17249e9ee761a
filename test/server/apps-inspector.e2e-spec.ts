import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../apps/demo/src/app.module.js';
import { ADAPTERS, type RunningApp, startApp } from '../support/app.factory.js';
import { REPO_ROOT } from '../support/forked-server.js';
import { ensureInspector, inspector, jsonLines } from '../support/inspector-cli.js';

/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, pinned with its Node 22 in tools/inspector-runner)
 * probes the demo's MCP App with `--app-info`: for `deploy_release` it reads the `ui://` view the tool names and
 * reports its App metadata (view URI, MIME type, `_meta.ui`), on the 2025-11-25 era (its default) and the modern one;
 * the board's app-only tools are listed only when the probe advertises MCP Apps (`--advertise-apps`).
 */

const BOARD = 'ui://ops-console/deployment-board';

/** One line of `--app-info` output. */
interface AppInfo {
  toolName: string;
  hasApp: boolean;
  resourceUri?: string;
  visibility?: string[];
  prefersBorder?: boolean;
  resourceMimeType?: string;
  resourceError?: unknown;
}

const infoLines = (stdout: string): AppInfo[] => jsonLines<AppInfo>(stdout);

beforeAll(() => {
  ensureInspector();
  execFileSync(process.execPath, ['scripts/build-demo-views.mjs'], { cwd: REPO_ROOT, stdio: 'pipe' });
}, 300_000);

describe.each(ADAPTERS)('the Inspector CLI probes the demo App (%s)', (adapter) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [AppModule] });
  });
  afterAll(() => running?.close());

  it.each([
    ['legacy', []],
    ['modern', ['--protocol-era', 'modern']],
  ])(
    'tools/list --app-info on the %s era reports the deployment board of deploy_release',
    async (_era, eraArgs) => {
      const plain = await inspector([running.mcpUrl.href, ...eraArgs, '--method', 'tools/list', '--app-info']);
      expect(plain.code, `${plain.stdout}\n${plain.stderr}`).toBe(0);
      const tools = infoLines(plain.stdout);
      expect(tools.find((tool) => tool.toolName === 'deploy_release')).toMatchObject({
        hasApp: true,
        resourceUri: BOARD,
        resourceMimeType: 'text/html;profile=mcp-app',
        prefersBorder: true,
      });
      expect(tools.find((tool) => tool.toolName === 'list_services')).toMatchObject({ hasApp: false });
      // Without MCP Apps the board's app-only tools are not listed.
      expect(tools.map((tool) => tool.toolName)).not.toContain('deployment_status');

      const advertised = await inspector([
        running.mcpUrl.href,
        ...eraArgs,
        '--method',
        'tools/list',
        '--app-info',
        '--advertise-apps',
      ]);
      expect(advertised.code, `${advertised.stdout}\n${advertised.stderr}`).toBe(0);
      const withApps = infoLines(advertised.stdout);
      // Listed now; they have no view of their own (the board calls them), so the probe reports no App for them.
      for (const name of ['deployment_status', 'cancel_deployment']) {
        expect(
          withApps.find((tool) => tool.toolName === name),
          name,
        ).toEqual({ toolName: name, hasApp: false });
      }
      expect(withApps.find((tool) => tool.toolName === 'deploy_release')).toMatchObject({
        hasApp: true,
        resourceUri: BOARD,
      });
    },
    120_000,
  );

  it('tools/call --app-info probes deploy_release without calling it', async () => {
    const run = await inspector([
      running.mcpUrl.href,
      '--method',
      'tools/call',
      '--tool-name',
      'deploy_release',
      '--app-info',
    ]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(infoLines(run.stdout)).toEqual([
      expect.objectContaining({ toolName: 'deploy_release', hasApp: true, resourceUri: BOARD }),
    ]);
  }, 90_000);
});
