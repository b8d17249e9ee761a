#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite against apps/conformance, as part of `npm test`.
 *
 * - The runner needs Node 22; it lives with its own pinned Node in tools/conformance-runner, installed with `npm ci`
 *   there (once, or when its lockfile changes). The fixture itself runs on the project's Node.
 * - The suite's own output goes to a log file: its closing "Total: N passed, M failed" line also counts
 *   unscored (extension) scenarios and must not be read as the project's test summary.
 * - The gate is the exit code with an empty expected-failures file (warnings count as failures), a health check
 *   before the run, and every pending scenario passing.
 *
 * Usage: node scripts/conformance.mjs [--requirements 2026-07-28] [--tasks] [--skills]
 * (with --requirements, the tasks and skills scenarios run only when --tasks / --skills is given too)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePinnedRunner } from './pinned-runner.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runnerDir = join(root, 'tools/conformance-runner');
const resultsDir = join(root, '.conformance');
const fixtureEntry = join(root, 'dist/apps/conformance/apps/conformance/src/main.js');
/** Scenarios each revision runs without scoring, that we require to pass anyway. */
const PENDING = {
  '2026-07-28': ['json-schema-2020-12', 'http-header-validation', 'http-custom-header-server-validation'],
  '2025-11-25': ['json-schema-2020-12', 'server-session-lifecycle'],
};
/**
 * The tasks extension's scenarios (`io.modelcontextprotocol/tasks`): tagged [extension], so no revision scores them;
 * they run one by one with `--scenario` and no `--spec-version` (the stateless 2026-07-28 wire) and every check must
 * succeed. `tasks-status-notifications` is the one the suite itself always skips (its only check is SKIPPED).
 */
const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];
const SKIPPED_BY_THE_SUITE = new Set(['tasks-status-notifications']);
/**
 * The skills extension's server scenarios (SEP-2640, `io.modelcontextprotocol/skills`): in the pending suite and tagged
 * [extension], so they run one by one with `--scenario`, on the stateless 2026-07-28 wire and, with `--force` (an
 * extension scenario is "not on the spec timeline" of a session revision), on 2025-11-25. Every check must succeed,
 * except the checks the suite itself skips on a revision (the cache attributes only exist from 2026-07-28 on).
 */
const SKILL_SCENARIOS = ['sep-2640-skills-enumeration', 'sep-2640-skills-directory', 'sep-2640-skills-manifest'];
const SKILL_REVISIONS = {
  '2026-07-28': { args: [], skippedBySuite: new Set() },
  '2025-11-25': {
    args: ['--spec-version', '2025-11-25', '--force'],
    skippedBySuite: new Set(['sep-2640-skills-list-cache-attributes', 'sep-2640-skills-get-cache-attributes']),
  },
};
const runTasks = !process.argv.includes('--requirements') || process.argv.includes('--tasks');
const runSkills = !process.argv.includes('--requirements') || process.argv.includes('--skills');
const requirements = process.argv.includes('--requirements')
  ? [process.argv[process.argv.indexOf('--requirements') + 1]]
  : ['2026-07-28', '2025-11-25'];

const log = (message) => console.log(`[conformance] ${message}`);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
}

/** Installs the runner when its lockfile changed since the last install. */
function ensureRunner() {
  ensurePinnedRunner(runnerDir, (message) => log(message));
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the fixture when its sources (or the library's) are newer than the build. */
function ensureFixtureBuilt() {
  const sources = Math.max(newestMtime(join(root, 'apps/conformance/src')), newestMtime(join(root, 'libs/mcp/src')));
  if (existsSync(fixtureEntry) && statSync(fixtureEntry).mtimeMs >= sources) return;
  log('building apps/conformance');
  run(join(root, 'node_modules/.bin/nest'), ['build', 'conformance'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Starts the fixture on a free loopback port and resolves with its MCP URL. */
function startFixture() {
  const child = spawn(process.execPath, [fixtureEntry], {
    cwd: root,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = new Promise((resolveUrl, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`fixture did not start:\n${output}`)), 30_000);
    const onData = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}:\n${output}`)));
  });
  return { child, url };
}

/** The fixture must answer a valid request before the run: a dead server passes some scenarios vacuously. */
async function healthCheck(url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'server/discover',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const body = await response.json();
  if (response.status !== 200 || !body.result?.supportedVersions?.includes('2026-07-28')) {
    throw new Error(`health check failed: ${response.status} ${JSON.stringify(body)}`);
  }
}

function runSuite(url, revision) {
  const out = join(resultsDir, revision);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const logFile = join(resultsDir, `${revision}.log`);
  const result = spawnSync(
    'npm',
    [
      'exec',
      '--',
      'conformance',
      'server',
      '--url',
      url,
      '--requirements',
      revision,
      '--expected-failures',
      join(runnerDir, `expected-failures-${revision}.yml`),
      '-o',
      out,
    ],
    { cwd: runnerDir, encoding: 'utf8', timeout: 300_000 },
  );
  writeFileSync(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}`);
  const pending = PENDING[revision] ?? [];
  const required = scoredServerScenarios(revision);
  const scored = [...(result.stdout ?? '').matchAll(/^([✓✗]) (\S+):/gm)].filter(([, , name]) => required.has(name));
  const failedPending = pending.filter((name) => !scenarioPassed(out, name));
  const passedScored = scored.filter(([, mark]) => mark === '✓').length;
  // Every scored scenario must have run and passed: the exit code alone can hide a scenario that never ran.
  const ok = result.status === 0 && failedPending.length === 0 && required.size > 0 && passedScored === required.size;
  log(
    `${revision}: scored scenarios ${passedScored}/${scored.length} ok, required unscored ${pending.length - failedPending.length}/${pending.length} ok, runner exit ${result.status} (log: ${logFile})`,
  );
  if (!ok) {
    console.error((result.stdout ?? '').split('=== SUMMARY ===')[1] ?? result.stdout);
    console.error(result.stderr);
    if (failedPending.length > 0) console.error(`[conformance] pending scenarios failing: ${failedPending.join(', ')}`);
  }
  return ok;
}

/** Runs the tasks scenarios one by one; each must exit 0 with every check SUCCESS (or SKIPPED where the suite skips). */
function runTaskScenarios(url) {
  const out = join(resultsDir, 'tasks');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  let log_ = '';
  const failed = [];
  for (const scenario of TASK_SCENARIOS) {
    const result = spawnSync(
      'npm',
      ['exec', '--', 'conformance', 'server', '--url', url, '--scenario', scenario, '-o', out],
      {
        cwd: runnerDir,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    log_ += `=== ${scenario}\n${result.stdout ?? ''}${result.stderr ?? ''}`;
    const checks = scenarioChecks(out, scenario);
    const allowed = SKIPPED_BY_THE_SUITE.has(scenario) ? new Set(['SUCCESS', 'SKIPPED']) : new Set(['SUCCESS']);
    if (result.status !== 0 || checks.length === 0 || !checks.every((check) => allowed.has(check.status)))
      failed.push(scenario);
  }
  const logFile = join(resultsDir, 'tasks.log');
  writeFileSync(logFile, log_);
  log(
    `tasks extension: ${TASK_SCENARIOS.length - failed.length}/${TASK_SCENARIOS.length} scenarios ok (log: ${logFile})`,
  );
  if (failed.length > 0) console.error(`[conformance] tasks scenarios failing: ${failed.join(', ')}`);
  return failed.length === 0;
}

/**
 * Runs the skills scenarios on both wires; each must exit 0 with every check SUCCESS (SKIPPED only where the suite
 * skips a check on that revision): a fixture that did not declare the extension would pass with every check SKIPPED.
 */
function runSkillScenarios(url) {
  let log_ = '';
  const failed = [];
  let ran = 0;
  for (const [revision, { args, skippedBySuite }] of Object.entries(SKILL_REVISIONS)) {
    const out = join(resultsDir, `skills-${revision}`);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    for (const scenario of SKILL_SCENARIOS) {
      ran++;
      const result = spawnSync(
        'npm',
        ['exec', '--', 'conformance', 'server', '--url', url, '--scenario', scenario, ...args, '-o', out],
        {
          cwd: runnerDir,
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      log_ += `=== ${scenario} (${revision})\n${result.stdout ?? ''}${result.stderr ?? ''}`;
      const checks = scenarioChecks(out, scenario);
      const accepted = (check) =>
        check.status === 'SUCCESS' || (check.status === 'SKIPPED' && skippedBySuite.has(check.id));
      const refused = checks.filter((check) => !accepted(check)).map((check) => `${check.id}: ${check.status}`);
      if (result.status !== 0 || checks.length === 0 || refused.length > 0) {
        failed.push(
          `${scenario} on ${revision}${refused.length > 0 ? ` (${refused.join(', ')})` : checks.length === 0 ? ' (no checks)' : ''}`,
        );
      }
    }
  }
  const logFile = join(resultsDir, 'skills.log');
  writeFileSync(logFile, log_);
  log(
    `skills extension: ${ran - failed.length}/${ran} scenario runs ok, on 2026-07-28 and 2025-11-25 (log: ${logFile})`,
  );
  if (failed.length > 0) console.error(`[conformance] skills scenarios failing: ${failed.join('; ')}`);
  return failed.length === 0;
}

/** The checks a scenario wrote to `out` (none when it did not run). */
function scenarioChecks(out, scenario) {
  const dir = readdirSync(out).find((name) => name.startsWith(`server-${scenario}-`));
  return dir ? JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) : [];
}

/** The server scenarios a revision scores, as the runner lists them. */
function scoredServerScenarios(revision) {
  const listing = spawnSync('npm', ['exec', '--', 'conformance', 'list', '--requirements', revision], {
    cwd: runnerDir,
    encoding: 'utf8',
  });
  const section = (listing.stdout ?? '').split('Server scenarios')[1]?.split(/\n\s*\n/)[0] ?? '';
  return new Set([...section.matchAll(/^\s+- (\S+)$/gm)].map(([, name]) => name));
}

/** A scenario passed when its checks.json has no FAILURE or WARNING. */
function scenarioPassed(out, scenario) {
  const dir = readdirSync(out).find((name) => name.startsWith(`server-${scenario}-`));
  if (!dir) return false;
  const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8'));
  return checks.length > 0 && checks.every((check) => check.status !== 'FAILURE' && check.status !== 'WARNING');
}

async function main() {
  ensureRunner();
  ensureFixtureBuilt();
  const { child, url } = startFixture();
  let ok = false;
  try {
    const mcpUrl = await url;
    await healthCheck(mcpUrl);
    ok = requirements.map((revision) => runSuite(mcpUrl, revision)).every(Boolean);
    if (runTasks) ok = runTaskScenarios(mcpUrl) && ok;
    if (runSkills) ok = runSkillScenarios(mcpUrl) && ok;
  } finally {
    child.kill('SIGTERM');
  }
  if (!ok) {
    log('FAILED');
    process.exit(1);
  }
  log('all required scenarios pass');
}

main().catch((error) => {
  console.error(`[conformance] ${error.stack ?? error}`);
  process.exit(1);
});
