import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStdioFixture } from '../support/stdio-fixture.build.js';

/**
 * The packages as a user installs them: `nest-mcp` (libs/mcp), `nest-mcp-cli` (libs/cli) and `nest-mcp-redis`
 * (libs/mcp-redis) compiled with the tsconfig each is published from, packed with `npm pack`, and installed from the
 * tarballs into projects outside the repository. The server library must not bring the official client (only the CLI
 * needs it), and the CLI and the Redis package must run with nothing of the library but what the installed
 * `nest-mcp` exports (`nest-mcp`, `nest-mcp/backend` and `nest-mcp/progress`).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const CLIENT = '@modelcontextprotocol/client';
const INSTALL_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline'];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * npm, run as a user would in `cwd`: without the `npm_*` variables of an enclosing `npm test` (they name this
 * repository as the project, `npm_config_local_prefix`).
 */
async function npm(args: string[], cwd: string): Promise<Run> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(package_|lifecycle_|config_(local_)?prefix$)/i.test(key)),
  );
  return run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, cwd, env);
}

async function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, {
      cwd,
      env,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * Compiles a package from its publishing tsconfig into `out` (type checking is `npm run typecheck`'s job), puts its
 * package.json beside the output as the published layout has it, and packs it; resolves with the tarball's path.
 */
async function pack(tsconfig: string, packageJson: string, out: string, destination: string): Promise<string> {
  const compiled = await run(process.execPath, [TSC, '-p', join(ROOT, tsconfig), '--outDir', out, '--noCheck'], ROOT);
  expect(compiled, compiled.stdout).toMatchObject({ code: 0 });
  copyFileSync(join(ROOT, packageJson), join(out, 'package.json'));
  const packed = await npm(['pack', out, '--pack-destination', destination, '--json'], destination);
  expect(packed.code, packed.stderr).toBe(0);
  return join(destination, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
}

/** A fresh project in `dir` that installs `tarballs` with `flags`. */
async function installInProject(dir: string, tarballs: string[], flags: string[]): Promise<void> {
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'package-deps-check', version: '0.0.0', private: true }),
  );
  const installed = await npm(['install', ...tarballs, ...flags, ...INSTALL_FLAGS], dir);
  expect(installed.code, installed.stderr).toBe(0);
}

let work: string;
let library: string;
let cli: string;
let redis: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'nest-mcp-packages-'));
  // `nest build mcp` compiles the same tsconfig; the library has no path alias for it to rewrite.
  [library, cli, redis] = await Promise.all([
    pack('libs/mcp/tsconfig.lib.json', 'libs/mcp/package.json', join(work, 'nest-mcp'), work),
    pack('libs/cli/tsconfig.lib.json', 'libs/cli/package.json', join(work, 'nest-mcp-cli'), work),
    pack('libs/mcp-redis/tsconfig.lib.json', 'libs/mcp-redis/package.json', join(work, 'nest-mcp-redis'), work),
  ]);
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('nest-mcp, installed alone', () => {
  let project: string;

  beforeAll(async () => {
    project = join(work, 'server-project');
    await installInProject(project, [library], ['--omit=peer']);
  }, 120_000);

  it('installs no @modelcontextprotocol/client: npm ls finds nothing', async () => {
    const installed = await npm(['ls', 'nest-mcp', '--json'], project);
    expect(JSON.parse(installed.stdout).dependencies['nest-mcp'].version).toBe('0.1.0');

    const listed = await npm(['ls', CLIENT, '--all'], project);
    expect(listed.code).toBe(1);
    expect(listed.stdout).not.toContain(CLIENT);
    expect(listed.stdout).toContain('(empty)');
    const json = await npm(['ls', CLIENT, '--all', '--json'], project);
    expect(JSON.parse(json.stdout).dependencies).toBeUndefined();
    expect(existsSync(join(project, 'node_modules', CLIENT))).toBe(false);
  });

  it('declares no command: the nest-mcp command is nest-mcp-cli’s', () => {
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules/nest-mcp/package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.bin).toBeUndefined();
    expect(existsSync(join(project, 'node_modules/.bin/nest-mcp'))).toBe(false);
  });
});

describe('nest-mcp-cli, installed beside nest-mcp', () => {
  let project: string;
  let bin: string;
  let stdioTarget: string;

  beforeAll(async () => {
    project = join(work, 'cli-project');
    await installInProject(project, [library, cli], []);
    bin = join(project, 'node_modules/.bin/nest-mcp');
    stdioTarget = `${process.execPath} ${await buildStdioFixture()}`;
  }, 120_000);

  it('brings the client pinned, under nest-mcp-cli only', async () => {
    const listed = await npm(['ls', CLIENT, '--all', '--json'], project);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).dependencies).toEqual({
      'nest-mcp-cli': expect.objectContaining({
        version: '0.1.0',
        dependencies: { [CLIENT]: expect.objectContaining({ version: '2.4.0' }) },
      }),
    });
  });

  it('imports nothing of the server library but its progress entry (nest-mcp/progress, which loads no Nest)', () => {
    const dir = join(project, 'node_modules/nest-mcp-cli');
    const specifiers = readdirSync(dir)
      .filter((name) => name.endsWith('.js'))
      .flatMap((name) =>
        [...readFileSync(join(dir, name), 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"]([^'"]+)['"]/g)].map(
          (match) => match[1],
        ),
      );
    const outside = specifiers.filter((specifier) => !specifier.startsWith('./') && !specifier.startsWith('node:'));
    expect(new Set(outside)).toEqual(new Set([CLIENT, `${CLIENT}/stdio`, 'nest-mcp/progress']));
  });

  it('runs its nest-mcp command: a call with NDJSON progress written by the installed library’s codec', async () => {
    expect(await run(bin, ['--version'], project)).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });

    const call = await run(
      bin,
      ['call', '--stdio', stdioTarget, 'count', '--arg', 'n=3', '--arg', 'delayMs=5'],
      project,
    );
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout).structuredContent).toEqual({ counted: 3 });
    const events = call.stderr
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((event) => [event.type, event.progress, event.total])).toEqual([
      ['progress', 1, 3],
      ['progress', 2, 3],
      ['progress', 3, 3],
    ]);
    expect(events.every((event) => typeof event.traceId === 'string' && typeof event.timestamp === 'string')).toBe(
      true,
    );
  });
});

describe('nest-mcp-redis, installed beside nest-mcp', () => {
  let project: string;
  const dir = () => join(project, 'node_modules/nest-mcp-redis');

  beforeAll(async () => {
    project = join(work, 'redis-project');
    // Its peers (Nest, ioredis) come from the registry, as for a user; @nestjs/terminus is an optional peer.
    await installInProject(project, [library, redis], []);
  }, 120_000);

  it('brings BullMQ pinned, under nest-mcp-redis; ioredis is a peer the project gets once', async () => {
    const listed = await npm(['ls', 'bullmq', 'ioredis', '--json'], project);
    expect(listed.code, listed.stderr).toBe(0);
    const tree = JSON.parse(listed.stdout) as {
      dependencies: Record<string, { version: string; dependencies?: Record<string, { version: string }> }>;
    };
    expect(tree.dependencies['nest-mcp-redis'].dependencies?.bullmq?.version).toBe('6.7.0');
    expect(existsSync(join(project, 'node_modules/ioredis/package.json'))).toBe(true);
    expect(existsSync(join(project, 'node_modules/@nestjs/terminus'))).toBe(false);
  });

  it('imports nothing of the server library but the package nest-mcp (its two entries)', () => {
    const files = readdirSync(dir(), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'));
    const specifiers = files.flatMap((name) =>
      [...readFileSync(join(dir(), name), 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"]([^'"]+)['"]/g)].map(
        (match) => match[1],
      ),
    );
    const outside = new Set(
      specifiers.filter(
        (specifier) => !specifier.startsWith('./') && !specifier.startsWith('../') && !specifier.startsWith('node:'),
      ),
    );
    expect(
      [...outside].filter(
        (specifier) =>
          !/^(nest-mcp|nest-mcp\/backend|nest-mcp-redis\/health|ioredis|bullmq|@nestjs\/(common|core|terminus))$/.test(
            specifier,
          ),
      ),
    ).toEqual([]);
    expect(outside.has('nest-mcp')).toBe(true);
    expect(outside.has('nest-mcp/backend')).toBe(true);
  });

  it('loads in the installed project: the module and the facade', async () => {
    const script =
      "import('reflect-metadata').then(() => Promise.all([import('nest-mcp-redis'), import('nest-mcp-redis/package.json', { with: { type: 'json' } })]))" +
      '.then(([m, p]) => console.log(JSON.stringify({ exports: Object.keys(m).sort(), version: p.default.version })))';
    const loaded = await run(process.execPath, ['-e', script], project);
    expect(loaded.code, loaded.stderr).toBe(0);
    const { exports, version } = JSON.parse(loaded.stdout) as { exports: string[]; version: string };
    expect(version).toBe('0.1.0');
    expect(exports).toEqual(expect.arrayContaining(['McpRedis', 'McpRedisModule']));
  });
});
