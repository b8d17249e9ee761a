import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../support/mcp-client.factory.js';
import {
  releaseTarballs,
  runCommand,
  userEnv,
  type CommandRun,
  type ReleaseTarballs,
} from '../support/release-packages.js';

/**
 * The packages as a new user gets them: a fresh Nest 12 application outside the repository runs the README's install
 * lines as written, except that our package names point at the tarballs of `npm run pack` (every other dependency comes
 * from the registry, at the versions the README names). It is compiled with the project's own plain `tsc` (NodeNext,
 * `strict`, `skipLibCheck: false`, so every installed declaration is checked), started, and called with the official
 * MCP client and with `npx nest-mcp` from the installed CLI package; its own test of its tools with `nest-mcp/testing`
 * (`Test.createTestingModule`) runs with node's test runner. The application's sources are
 * test/fixtures/release-consumer.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = join(ROOT, 'test/fixtures/release-consumer');
/** Use the npm cache when it has what is asked; the registry otherwise. */
const INSTALL_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];
/** The application's own development tools, at the versions this repository pins. */
const DEV_TOOLS = ['typescript', '@types/node', '@nestjs/testing'];
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** The consumer's tsconfig: what the issue asks of a user's project. */
const TSCONFIG = {
  compilerOptions: {
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2023',
    strict: true,
    skipLibCheck: false,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    types: ['node'],
    rootDir: '.',
    outDir: 'dist',
    sourceMap: true,
  },
  include: ['src', 'test'],
};

/**
 * The `npm install` lines of the README's "Install" section, each as its words (a trailing `# comment` dropped).
 * Throws when the section or its lines are gone, so the README cannot lose its install line silently.
 */
function readmeInstallLines(readme: string): string[][] {
  const section = /^## Install\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  const fence = section && /^```bash\n([\s\S]*?)^```/m.exec(section)?.[1];
  if (!fence) throw new Error('README.md has no "## Install" section with a ```bash block');
  const lines = fence
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('npm install '))
    .map((line) => line.split(/\s+/));
  if (lines.length === 0) throw new Error('the "## Install" block of README.md has no `npm install` line');
  return lines;
}

/** The fenced blocks of `language` in a Markdown text. */
function fences(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((match) => match[1]);
}

let tarballs: ReleaseTarballs;
let app: string;
/** The README's install lines that ran, as written. */
let installs: string[];
let compiled: CommandRun;
let server: ChildProcess | undefined;
let url: URL;

/** Starts the compiled application on a free port and resolves with its MCP endpoint (printed by its main.ts). */
async function startServer(): Promise<URL> {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: app,
    env: userEnv({ PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  let output = '';
  return new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the application did not print its URL within 60 s:\n${output}`)),
      60_000,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^listening (\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the application exited (${code}) before listening:\n${output}`));
    });
  });
}

beforeAll(async () => {
  tarballs = await releaseTarballs();
  app = mkdtempSync(join(tmpdir(), 'nest-mcp-consumer-'));
  // The project has its development tools already (at the versions this repository pins); the README's lines add
  // the rest, each `npm install` installing the whole tree.
  const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const devDependencies = Object.fromEntries(DEV_TOOLS.map((name) => [name, pinned.devDependencies[name]]));
  const manifest = { name: 'consumer-app', version: '1.0.0', private: true, type: 'module', devDependencies };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  installs = [];
  for (const words of readmeInstallLines(readFileSync(join(ROOT, 'README.md'), 'utf8'))) {
    const args = words.slice(1).map((word) => (Object.hasOwn(tarballs, word) ? tarballs[word] : word));
    const run = await runCommand(NPM, [...args, ...INSTALL_FLAGS], app);
    installs.push(words.join(' '));
    if (run.code !== 0) throw new Error(`\`${words.join(' ')}\` failed in ${app}:\n${run.stderr}`);
  }

  cpSync(join(FIXTURE, 'src'), join(app, 'src'), { recursive: true });
  cpSync(join(FIXTURE, 'test'), join(app, 'test'), { recursive: true });
  writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  compiled = await runCommand(NPX, ['tsc', '-p', 'tsconfig.json'], app);
  if (compiled.code !== 0)
    throw new Error(`tsc failed in the consumer application:\n${compiled.stdout}${compiled.stderr}`);
  url = await startServer();
}, 300_000);

// Removing the consumer's node_modules is slow on a loaded machine (a coverage run): the hook gets its own bound.
afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    // A server still draining after 10 s is killed: the hook must not outlive the run.
    const killer = setTimeout(() => server?.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
  if (app) rmSync(app, { recursive: true, force: true });
}, 120_000);

describe('a fresh Nest 12 application on the packed packages', () => {
  it('gets our packages from the tarballs and the rest from the registry, with every peer satisfied', {
    timeout: 60_000,
  }, async () => {
    // Each package of the repository is installed by a line of the README.
    const named = installs.flatMap((line) => line.split(' '));
    expect(Object.keys(tarballs).filter((name) => !named.includes(name))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    for (const [name, tarball] of Object.entries(tarballs)) {
      const spec = manifest.dependencies[name] ?? manifest.devDependencies[name];
      expect(spec, name).toMatch(/^file:/);
      expect(resolve(app, spec.slice('file:'.length)), name).toBe(tarball);
    }
    const listed = await runCommand(NPM, ['ls', '--json'], app);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    type Locked = { version: string; resolved?: string; integrity?: string; link?: boolean };
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, Locked>;
    };
    // Nest from the registry: a published 12.x, not a link or a file of this repository.
    for (const name of ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express']) {
      const locked = lock.packages[`node_modules/${name}`];
      expect(locked.version, name).toMatch(/^12\./);
      expect(locked.integrity, name).toMatch(/^sha512-/);
      expect(locked.link, name).toBeUndefined();
      expect(locked.resolved ?? 'https:', name).toMatch(/^https?:/);
    }
    // Ours: exactly the bytes of the tarballs.
    for (const [name, tarball] of Object.entries(tarballs)) {
      const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
      expect(lock.packages[`node_modules/${name}`], name).toMatchObject({
        resolved: expect.stringMatching(/^file:/),
        integrity,
      });
    }
  });

  it('is what the package READMEs show: their code is this application’s, their install lines are the README’s', () => {
    const fixture = ['src/calculator.tools.ts', 'src/app.module.ts', 'src/redis.module.ts', 'test/app.test.ts'].map(
      (file) => readFileSync(join(FIXTURE, file), 'utf8'),
    );
    const rootLines = readmeInstallLines(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((words) => words.join(' '));
    for (const dir of ['libs/mcp', 'libs/cli', 'libs/mcp-redis']) {
      const readme = readFileSync(join(ROOT, dir, 'README.md'), 'utf8');
      for (const code of fences(readme, 'ts')) {
        expect(
          fixture.some((source) => source.includes(code)),
          `${dir}/README.md shows code that is not in ${FIXTURE}:\n${code}`,
        ).toBe(true);
      }
      const lines = fences(readme, 'bash')
        .flatMap((block) => block.split('\n'))
        .map((line) =>
          line
            .replace(/\s+#.*$/, '')
            .trim()
            .split(/\s+/)
            .join(' '),
        )
        .filter((line) => line.startsWith('npm install '));
      expect(lines.length, `${dir}/README.md has no install line`).toBeGreaterThan(0);
      expect(
        lines.filter((line) => !rootLines.includes(line)),
        `${dir}/README.md installs differently from README.md`,
      ).toEqual([]);
    }
    expect(fences(readFileSync(join(ROOT, 'libs/mcp/README.md'), 'utf8'), 'ts').length).toBeGreaterThan(0);
  });

  it('compiles with plain tsc: NodeNext, strict, skipLibCheck false, decorators with metadata', () => {
    expect(compiled.code, compiled.stdout).toBe(0);
    const tsconfig = JSON.parse(readFileSync(join(app, 'tsconfig.json'), 'utf8')) as typeof TSCONFIG;
    expect(tsconfig.compilerOptions).toMatchObject({
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: false,
    });
    // The DTOs' types reached the output as design metadata, which the tools' input schemas are made from.
    expect(readFileSync(join(app, 'dist/src/calculator.tools.js'), 'utf8')).toContain(
      '__metadata("design:type", Number)',
    );
  });

  describe('started, and called by the official MCP client', () => {
    let client: Client;

    beforeAll(async () => {
      client = await connectClient(url);
    });
    afterAll(() => client?.close());

    it('lists the tools with the input schemas made from the DTOs', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'count']);
      expect(tools.find((tool) => tool.name === 'add')?.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        required: ['a', 'b'],
      });
    });

    it('calls a tool: structured result and its text copy', async () => {
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      expect(result.structuredContent).toEqual({ sum: 42 });
      expect(result.content).toEqual([{ type: 'text', text: '{"sum":42}' }]);
    });

    it('streams the progress of a call', async () => {
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'count', arguments: { to: 3 } },
        { onprogress: (event) => progress.push(event.progress) },
      );
      expect(result.structuredContent).toEqual({ counted: 3 });
      expect(progress).toEqual([1, 2, 3]);
    });
  });

  it('answers `npx nest-mcp tools <url>` and `npx nest-mcp call` from the installed CLI package', {
    timeout: 60_000,
  }, async () => {
    const listed = await runCommand(NPX, ['nest-mcp', 'tools', url.href], app);
    expect(listed.code, listed.stderr).toBe(0);
    const { tools } = JSON.parse(listed.stdout) as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'count']);

    const called = await runCommand(NPX, ['nest-mcp', 'call', url.href, 'add', '--arg', 'a=2', '--arg', 'b=40'], app);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ structuredContent: { sum: 42 } });
  });

  it('runs its own Test.createTestingModule test with nest-mcp/testing (node --test)', {
    timeout: 60_000,
  }, async () => {
    const tested = await runCommand(process.execPath, ['--test', 'dist/test/app.test.js'], app);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^# pass 3$/m);
    expect(tested.stdout).toMatch(/^# fail 0$/m);
  });
});
