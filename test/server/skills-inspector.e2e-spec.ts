import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../apps/demo/src/app.module.js';
import { ADAPTERS, type RunningApp, startApp } from '../support/app.factory.js';
import { ensureInspector, inspector, jsonLines } from '../support/inspector-cli.js';

/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, pinned with its Node 22 in tools/inspector-runner)
 * verifies the demo's skills: `--method skills/list --verify` reads every file of every skill and checks digests,
 * sizes and frontmatter against the listing, on the 2025-11-25 era (its default) and on the modern one.
 */

/** The demo's skills (apps/demo/skills). */
const DEMO_SKILLS = ['skill://ops/safe-rollout/SKILL.md', 'skill://ops/triage-incident/SKILL.md'];

/** The per-skill JSON reports `--verify` prints, one per line. */
function reports(
  stdout: string,
): { uri: string; outcome: string; ok: boolean; files: { uri: string; status: string }[] }[] {
  return jsonLines(stdout);
}

beforeAll(() => ensureInspector(), 300_000);

describe.each(ADAPTERS)('the Inspector CLI verifies the demo skills (%s)', (adapter) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(adapter, { imports: [AppModule] });
  });
  afterAll(() => running?.close());

  it.each([
    ['legacy', []],
    ['modern', ['--protocol-era', 'modern']],
  ])(
    'skills/list --verify on the %s era exits 0 with every skill and file verified',
    async (_era, eraArgs) => {
      const run = await inspector([running.mcpUrl.href, ...eraArgs, '--method', 'skills/list', '--verify']);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      const verified = reports(run.stdout);
      expect(verified.map((report) => report.uri).sort()).toEqual(DEMO_SKILLS);
      for (const report of verified) {
        expect(report, JSON.stringify(report)).toMatchObject({ ok: true, outcome: 'verified' });
        expect(report.files.length).toBeGreaterThan(0);
        for (const file of report.files) expect(file.status, file.uri).toBe('verified');
      }
      expect(
        verified.find((report) => report.uri.includes('triage-incident'))!.files.map((file) => file.uri),
      ).toContain('skill://ops/triage-incident/references/PLAYBOOK.md');
    },
    90_000,
  );
});
