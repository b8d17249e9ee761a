import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOMOGRAPH_HOST, HOSTILE_TEXT, SecurityCliFixtureModule } from '../fixtures/security-cli.fixture.js';
import { ADAPTERS, startApp, type RunningApp } from '../support/app.factory.js';

/**
 * Issue #13, item 9: `nest-mcp` against a server that puts terminal control sequences (OSC 52 clipboard writes,
 * OSC 8 links, CSI cursor movement and screen clearing, carriage returns, 8-bit C1 controls, bidi overrides) in its
 * progress messages, elicitation forms, URL elicitations, results and errors. Run in a real pseudo-terminal, none of
 * them reaches the terminal raw: each shows escaped (`\x1b]52;…`). In a pipe the JSON keeps the text exact but has
 * no raw control character either. A stdio server the CLI starts sees only a minimal environment unless the user
 * passes more (`--env`, `--inherit-env`).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/nest-mcp.mjs');
const PTY_DRIVER = join(ROOT, 'test/support/pty.driver.py');
const FIXTURE_SOURCE = 'test/fixtures/security-cli-main.fixture.ts';
const FIXTURE_CACHE = join(ROOT, 'node_modules/.cache/nest-mcp-security-cli-fixture');

/**
 * What the CLI and the terminal draw themselves: cursor hide/show, erase line, bold/dim/reset, readline's redraws, and
 * line ends (the terminal turns `\n` into `\r\n`, and readline writes `\r\n` after an answer).
 */
const CLI_OWN_SEQUENCES = /\x1b\[\?25[lh]|\r\x1b\[2K|\x1b\[[0-2]m|\x1b\[\d*[GJK]|\r*\n/g;
/** What must never reach the terminal from the server. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with pipes, with exactly `env` as its environment. */
async function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      timeout: 60_000,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs the CLI in a pseudo-terminal, typing `replies` when their prompt shows; resolves with the screen's bytes. */
async function runCliInTerminal(
  args: string[],
  replies: [string, string][] = [],
  timeout = 60,
): Promise<{ status: number; screen: string; unanswered: string[] }> {
  const spec = {
    argv: [process.execPath, BIN, ...args],
    replies,
    columns: 100,
    timeout,
    env: { TERM: 'xterm-256color' },
  };
  const { stdout } = await promisify(execFile)('python3', [PTY_DRIVER, JSON.stringify(spec)], {
    cwd: ROOT,
    timeout: (timeout + 30) * 1000,
  });
  const result = JSON.parse(stdout) as { output: string; status: number; unanswered: string[] };
  return {
    status: result.status,
    screen: Buffer.from(result.output, 'base64').toString('utf8'),
    unanswered: result.unanswered,
  };
}

/** Every raw control character left once the CLI's own sequences are taken out, with some context to read. */
function rawControls(text: string): string[] {
  const rest = text.replace(CLI_OWN_SEQUENCES, '\n');
  const found: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (RAW_CONTROL.test(rest[i])) found.push(JSON.stringify(rest.slice(Math.max(0, i - 12), i + 12)));
  }
  return found;
}

/**
 * Compiles the stdio entry of the fixture (and the library it imports) with tsc into node_modules/.cache, as
 * test/support/stdio-fixture.build.ts does for the shared stdio fixture, so the CLI can start it with plain node.
 */
async function buildFixture(): Promise<string> {
  const entry = join(FIXTURE_CACHE, 'out', FIXTURE_SOURCE.replace(/\.ts$/, '.js'));
  const stamp = join(FIXTURE_CACHE, 'built.stamp');
  const newest = (dir: string) =>
    Math.max(
      ...readdirSync(dir, { withFileTypes: true, recursive: true })
        .filter((file) => file.isFile() && file.name.endsWith('.ts') && !file.name.endsWith('.spec.ts'))
        .map((file) => statSync(join(file.parentPath, file.name)).mtimeMs),
    );
  if (
    existsSync(stamp) &&
    existsSync(entry) &&
    statSync(stamp).mtimeMs > Math.max(newest(join(ROOT, 'libs/mcp/src')), newest(join(ROOT, 'test/fixtures')))
  ) {
    return entry;
  }
  const staging = `${FIXTURE_CACHE}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(
    join(staging, 'tsconfig.json'),
    JSON.stringify({
      extends: relative(staging, join(ROOT, 'tsconfig.json')),
      compilerOptions: { rootDir: relative(staging, ROOT), outDir: './out', declaration: false, sourceMap: false },
      files: [relative(staging, join(ROOT, FIXTURE_SOURCE))],
      include: [],
      exclude: [],
    }),
  );
  await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(staging, 'tsconfig.json'), '--noCheck'],
    { cwd: ROOT },
  );
  // `from 'nest-mcp'` (and `'nest-mcp/backend'`) → a relative import of the compiled library.
  const entries: Record<string, string> = {
    '': 'out/libs/mcp/src/index.js',
    '/backend': 'out/libs/mcp/src/backend/index.js',
  };
  for (const file of readdirSync(join(staging, 'out/test'), { withFileTypes: true, recursive: true })) {
    if (!file.isFile() || !file.name.endsWith('.js')) continue;
    const path = join(file.parentPath, file.name);
    const specifier = (entry: string) =>
      relative(file.parentPath, join(staging, entries[entry])).replace(/^(?!\.)/, './');
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace(
        /from\s+['"]nest-mcp(|\/backend)['"]/g,
        (_, entry: string) => `from '${specifier(entry)}'`,
      ),
    );
  }
  writeFileSync(join(staging, 'built.stamp'), new Date().toISOString());
  rmSync(FIXTURE_CACHE, { recursive: true, force: true });
  renameSync(staging, FIXTURE_CACHE);
  return entry;
}

let stdioTarget: string;

beforeAll(async () => {
  stdioTarget = `${process.execPath} ${await buildFixture()}`;
  // Builds the CLI on first use (bin/nest-mcp.mjs compiles it when missing or stale).
  expect((await runCli(['--version'])).code).toBe(0);
}, 240_000);

describe.each(ADAPTERS)('nest-mcp against a server that sends terminal control sequences (%s)', (adapter) => {
  let http: RunningApp;

  beforeAll(async () => {
    http = await startApp(adapter, { imports: [SecurityCliFixtureModule] });
  });

  afterAll(async () => {
    await http?.close();
  });

  it('shows progress messages, results, resource links and tool descriptions escaped on a terminal', async () => {
    const run = await runCliInTerminal(['call', http.mcpUrl.href, 'hostile_progress']);
    expect(run.status).toBe(0);
    const { screen } = run;
    expect(rawControls(screen)).toEqual([]);
    // The bar still draws; the server's text in it is escaped.
    expect(screen).toContain('] 100% two \\x1b]52;c;');
    // The result, every sample visibly escaped.
    expect(screen).toContain(
      'result \\x1b]52;c;cm0gLXJmIH4K\\x07 | \\x1b]8;;https://evil.example/\\x1b\\https://good.example/\\x1b]8;;\\x1b\\ | ',
    );
    expect(screen).toContain(
      '\\x1b[2J\\x1b[H\\x1b[3A | all good\\rALL BAD | \\x9b2J\\x9d52;c;AAAA\\x9c | invoice\\u202efdp.exe | ',
    );
    expect(screen).toContain('\\x1bP1$r0m\\x1b\\\\x1b_apc\\x1b\\ | \\x1b]52;c;\r\n');
    // A link shows its real host, in punycode.
    expect(screen).toContain(
      `→ https://good.example@${HOMOGRAPH_HOST}/login (host: ${HOMOGRAPH_HOST}; "good.example@" is a user name, not the host) (link \\x1b]8;;`,
    );

    const tools = await runCliInTerminal(['tools', http.mcpUrl.href]);
    expect(tools.status).toBe(0);
    expect(rawControls(tools.screen)).toEqual([]);
    expect(tools.screen).toContain('Reports progress with control text \\x1b[2J\\x1b[H\\x1b[3A');
  });

  it('asks a form whose message, titles, descriptions, choices and defaults carry control text, escaped', async () => {
    const run = await runCliInTerminal(
      ['call', http.mcpUrl.href, 'hostile_form'],
      [
        ['Pick', '1'],
        ['Word', ''],
        ['Send\\?', ''],
      ],
    );
    expect(run.unanswered).toEqual([]);
    expect(run.status).toBe(0);
    const { screen } = run;
    expect(rawControls(screen)).toEqual([]);
    expect(screen).toContain('? Question \\x1b]52;c;cm0gLXJmIH4K\\x07 | ');
    expect(screen).toContain('About \\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(screen).toContain('1) first \\x1b]8;;https://evil.example/\\x1b\\https://good.example/\\x1b]8;;\\x1b\\');
    expect(screen).toContain('2) second \\x9b2J\\x9d52;c;AAAA\\x9c');
    expect(screen).toContain('Pick \\x1b[2J\\x1b[H\\x1b[3A');
    expect(screen).toContain('Word all good\\rALL BAD');
    expect(screen).toContain('default "invoice\\u202efdp.exe"');
    expect(screen.trimEnd().endsWith('picked a')).toBe(true);
  });

  it('shows a URL elicitation with its real host, and refuses a link that is not http(s) without asking', async () => {
    const run = await runCliInTerminal(['call', http.mcpUrl.href, 'hostile_url'], [['Done\\?', 'y']]);
    expect(run.unanswered).toEqual([]);
    expect(run.status).toBe(0);
    expect(rawControls(run.screen)).toEqual([]);
    expect(run.screen).toContain('? Sign in \\x1b]8;;https://evil.example/\\x1b\\');
    expect(run.screen).toContain(`Open https://good.example@${HOMOGRAPH_HOST}/login (host: ${HOMOGRAPH_HOST}`);
    expect(run.screen.trimEnd().endsWith('url: accept')).toBe(true);

    const script = await runCliInTerminal(['call', http.mcpUrl.href, 'script_url'], [['Done\\?', 'y']], 20);
    expect(script.unanswered).toEqual(['Done\\?']);
    expect(script.status).toBe(0);
    expect(script.screen).toContain('not an http(s) link');
    expect(script.screen.trimEnd().endsWith('url: decline')).toBe(true);
  });

  it('escapes the error line on stderr, in a terminal and in a pipe', async () => {
    const terminal = await runCliInTerminal(['call', http.mcpUrl.href, 'hostile_error']);
    expect(terminal.status).toBe(1);
    expect(rawControls(terminal.screen)).toEqual([]);
    expect(terminal.screen).toContain('nest-mcp: tool error: failed \\x1b]52;c;cm0gLXJmIH4K\\x07 | ');

    const piped = await runCli(['call', http.mcpUrl.href, 'hostile_error']);
    expect(piped.code).toBe(1);
    expect(rawControls(piped.stderr)).toEqual([]);
    expect(piped.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^nest-mcp: tool error: failed \\x1b\]52;c;cm0gLXJmIH4K\\x07 \| /,
    );
  });

  it('keeps the text exact but JSON-escaped in a pipe: no raw control character on stdout or stderr', async () => {
    const run = await runCli(['call', http.mcpUrl.href, 'hostile_progress']);
    expect(run.code).toBe(0);
    expect(rawControls(run.stdout)).toEqual([]);
    expect(rawControls(run.stderr)).toEqual([]);
    expect(JSON.parse(run.stdout).content[0]).toEqual({ type: 'text', text: `result ${HOSTILE_TEXT}` });
    // C1 and bidi characters are valid in JSON strings, so JSON.stringify leaves them raw; the CLI escapes them too.
    expect(run.stdout).toContain('\\u009b2J\\u009d52;c;AAAA\\u009c');
    expect(run.stdout).toContain('invoice\\u202efdp.exe');
    const events = run.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { message: string });
    expect(events.map((event) => event.message)).toEqual([`one ${HOSTILE_TEXT}`, `two ${HOSTILE_TEXT}`]);

    // The same JSON written straight to a terminal (--plain).
    const plain = await runCliInTerminal(['call', http.mcpUrl.href, 'hostile_progress', '--plain']);
    expect(plain.status).toBe(0);
    expect(rawControls(plain.screen)).toEqual([]);

    const missing = await runCli(['call', http.mcpUrl.href, 'hostile_url']);
    expect(missing.code).toBe(1);
    expect(rawControls(missing.stderr)).toEqual([]);
    expect(missing.stderr.trimEnd().split('\n').at(-1)).toContain(
      `https://good.example@${HOMOGRAPH_HOST}/login (host: ${HOMOGRAPH_HOST}`,
    );

    const script = await runCli(['call', http.mcpUrl.href, 'script_url', '--answer', 'script=accept']);
    expect(script.code).toBe(0);
    expect(JSON.parse(script.stdout).content).toEqual([{ type: 'text', text: 'url: decline' }]);
  });
});

describe('nest-mcp --stdio', () => {
  const secrets = {
    NEST_MCP_TEST_SECRET: 'hunter2',
    AWS_SECRET_ACCESS_KEY: 'aws-secret',
    GITHUB_TOKEN: 'ghp_secret',
    NODE_OPTIONS: '--no-warnings',
  };
  const env = { ...process.env, ...secrets };
  const keysSeen = async (args: string[]) => {
    const run = await runCli(['call', '--stdio', stdioTarget, 'env_keys', ...args], env);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout).structuredContent.keys as string[];
  };

  it('starts the server with a minimal environment: no secrets, no NODE_OPTIONS', async () => {
    const keys = await keysSeen([]);
    expect(keys).toContain('PATH');
    for (const name of Object.keys(secrets)) expect(keys).not.toContain(name);
    const allowed = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR'];
    // What the server sees beyond the allowed names is only what Node itself sets in a child.
    expect(keys.filter((key) => !allowed.includes(key))).toEqual([]);
  });

  it('passes what --env names or sets, and everything with --inherit-env', async () => {
    const named = await runCli(
      [
        'call',
        '--stdio',
        stdioTarget,
        'env_value',
        '--arg',
        'name=NEST_MCP_TEST_SECRET',
        '--env',
        'NEST_MCP_TEST_SECRET',
      ],
      env,
    );
    expect(JSON.parse(named.stdout).structuredContent).toEqual({ value: 'hunter2' });
    const set = await runCli(
      ['call', '--stdio', stdioTarget, 'env_value', '--arg', 'name=EXTRA', '--env', 'EXTRA=a=b c'],
      env,
    );
    expect(JSON.parse(set.stdout).structuredContent).toEqual({ value: 'a=b c' });
    expect(await keysSeen(['--env', 'GITHUB_TOKEN'])).not.toContain('AWS_SECRET_ACCESS_KEY');

    const inherited = await keysSeen(['--inherit-env']);
    for (const name of Object.keys(secrets)) expect(inherited).toContain(name);
    // Four CLI runs, each starting a stdio server: more than the default 20 s on a loaded 2-core machine.
  }, 60_000);

  it('refuses --env and --inherit-env for an HTTP target', async () => {
    const run = await runCli(['tools', 'http://127.0.0.1:9/mcp', '--env', 'A=1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('nest-mcp: --env applies to --stdio targets only (see nest-mcp --help)\n');
  });

  it('escapes what the server writes to its stderr under --verbose', async () => {
    const run = await runCli(['call', '--stdio', stdioTarget, 'hostile_stderr', '--verbose', '--plain']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('stderr \\x1b]52;c;cm0gLXJmIH4K\\x07 | ');
    expect(rawControls(run.stderr)).toEqual([]);
  });
});
