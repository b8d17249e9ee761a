import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseTarballs, runCommand, userEnv, type ReleaseTarballs } from '../support/release-packages.js';

/**
 * The tarballs of `npm run pack` as the registry would receive them: what each holds (and does not), that its
 * manifest, README, LICENSE and CHANGELOG are the repository's, that its source maps stand alone, and that the
 * ecosystem's packaging linters find nothing wrong: publint (strict: warnings count as errors) and Are the Types
 * Wrong? (`attw`, profile esm-only: the packages are ESM-only, like Nest 12 itself, so CommonJS `require` and the
 * node10 resolution are out of scope).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const ATTW = join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js');

interface Expected {
  name: string;
  dir: string;
  /** Ships declarations (a library); the CLI ships none. */
  typed: boolean;
}

const PACKAGES: Expected[] = [
  { name: 'nest-mcp', dir: 'libs/mcp', typed: true },
  { name: 'nest-mcp-cli', dir: 'libs/cli', typed: false },
  { name: 'nest-mcp-redis', dir: 'libs/mcp-redis', typed: true },
];

/** The files every tarball carries besides compiled code. */
const PACKAGE_FILES = ['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json'];

/** attw's resolution modes that the esm-only profile leaves out. */
const OUT_OF_PROFILE = new Set(['node10', 'node16-cjs']);

/** Relative POSIX paths of the files under `dir`, sorted. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** The sources a package is compiled from: libs/<dir>/src without its unit specs. */
function sourcesOf(pkg: Expected): string[] {
  return listFiles(join(ROOT, pkg.dir, 'src')).filter((file) => !file.endsWith('.spec.ts'));
}

async function publintErrors(tarball: string): Promise<string[]> {
  const data = readFileSync(tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer },
    strict: true,
  });
  return messages.map((message) => `${message.type}: ${formatMessage(message, pkg) ?? message.code}`);
}

interface AttwReport {
  analysis: { types: false | { kind: string }; entrypoints?: Record<string, unknown> };
  problems?: Record<string, { kind: string; entrypoint?: string; resolutionKind?: string }[]>;
}

async function attw(tarball: string): Promise<{ code: number; report: AttwReport; output: string }> {
  const ran = await runCommand(
    process.execPath,
    [ATTW, tarball, '--profile', 'esm-only', '--format', 'json', '--no-color'],
    ROOT,
  );
  return { code: ran.code, report: JSON.parse(ran.stdout) as AttwReport, output: ran.stdout + ran.stderr };
}

/** Problems attw reports within the esm-only profile. */
function inProfile(report: AttwReport): string[] {
  return Object.values(report.problems ?? {})
    .flat()
    .filter((problem) => !problem.resolutionKind || !OUT_OF_PROFILE.has(problem.resolutionKind))
    .map(
      (problem) => `${problem.kind} at ${problem.entrypoint ?? '?'} (${problem.resolutionKind ?? 'any resolution'})`,
    );
}

let tarballs: ReleaseTarballs;
let work: string;
/** Each package's tarball, unpacked: `<work>/<name>/package/…`. */
const unpacked = (name: string) => join(work, name, 'package');

beforeAll(async () => {
  tarballs = await releaseTarballs();
  work = mkdtempSync(join(tmpdir(), 'nest-mcp-release-'));
  for (const { name } of PACKAGES) {
    mkdirSync(join(work, name));
    const untarred = await runCommand('tar', ['-xzf', tarballs[name], '-C', join(work, name)], work);
    expect(untarred.code, untarred.stderr).toBe(0);
  }
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.each(PACKAGES)('the $name tarball', (pkg) => {
  const files = () => listFiles(unpacked(pkg.name));

  it('holds the four package files and otherwise only compiled JavaScript, source maps and declarations', () => {
    const code = files().filter((file) => !PACKAGE_FILES.includes(file));
    expect(files()).toEqual(expect.arrayContaining(PACKAGE_FILES));
    const allowed = pkg.typed ? /\.(js|js\.map|d\.ts)$/ : /\.(js|js\.map)$/;
    expect(code.filter((file) => !allowed.test(file))).toEqual([]);
    expect(
      code.filter((file) => /(^|\/)(test|tests|fixtures?|__\w+__)\/|\.(spec|test|e2e-spec)\.|tsbuildinfo/.test(file)),
    ).toEqual([]);
  });

  it('compiles every source of its src/ folder (specs aside), and nothing else', () => {
    const sources = sourcesOf(pkg);
    // Assets would have to be copied by scripts/pack.mjs, which only compiles TypeScript.
    expect(
      sources.filter((file) => !file.endsWith('.ts')),
      `non-TypeScript files in ${pkg.dir}/src are not packed`,
    ).toEqual([]);
    const stems = sources.map((file) => file.replace(/\.ts$/, '')).sort();
    const shipped = (extension: string) =>
      files()
        .filter((file) => file.endsWith(extension))
        .map((file) => file.slice(0, -extension.length))
        .sort();
    expect(shipped('.js')).toEqual(stems);
    expect(shipped('.js.map')).toEqual(stems);
    expect(shipped('.d.ts')).toEqual(pkg.typed ? stems : []);
  });

  it('ships the manifest of its folder as it is, its README, and the repository’s LICENSE and CHANGELOG', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked(pkg.name), 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toEqual(JSON.parse(readFileSync(join(ROOT, pkg.dir, 'package.json'), 'utf8')));
    expect(manifest).toMatchObject({ name: pkg.name, license: 'MIT', type: 'module' });
    expect(readFileSync(join(unpacked(pkg.name), 'README.md'), 'utf8')).toBe(
      readFileSync(join(ROOT, pkg.dir, 'README.md'), 'utf8'),
    );
    for (const file of ['LICENSE', 'CHANGELOG.md']) {
      expect(readFileSync(join(unpacked(pkg.name), file), 'utf8'), file).toBe(readFileSync(join(ROOT, file), 'utf8'));
    }
    expect(readFileSync(join(unpacked(pkg.name), 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('has source maps that carry their sources, named within the package, and no path of the machine that built it', () => {
    const misnamed: string[] = [];
    for (const file of files().filter((name) => name.endsWith('.js.map'))) {
      const map = JSON.parse(readFileSync(join(unpacked(pkg.name), file), 'utf8')) as {
        sources: string[];
        sourcesContent?: string[];
      };
      const expected = `src/${file.replace(/\.js\.map$/, '.ts')}`;
      const named = map.sources.map((source) => posix.join(posix.dirname(file), source));
      if (named.length !== 1 || named[0] !== expected) misnamed.push(`${file}: ${named.join(', ')}`);
      else if (!(typeof map.sourcesContent?.[0] === 'string' && map.sourcesContent[0].length > 0))
        misnamed.push(`${file}: no inlined source`);
    }
    expect(misnamed).toEqual([]);
    const leaking = files().filter((file) => {
      const text = readFileSync(join(unpacked(pkg.name), file), 'utf8');
      return text.includes(ROOT) || text.includes(tmpdir());
    });
    expect(leaking).toEqual([]);
  });

  it('passes publint with warnings counted as errors', { timeout: 60_000 }, async () => {
    expect(await publintErrors(tarballs[pkg.name])).toEqual([]);
  });

  it('passes Are the Types Wrong? (attw, esm-only profile)', { timeout: 120_000 }, async () => {
    const { code, report, output } = await attw(tarballs[pkg.name]);
    expect(code, output).toBe(0);
    expect(inProfile(report)).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(unpacked(pkg.name), 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    if (pkg.typed) {
      expect(report.analysis.types).toEqual({ kind: 'included' });
      // attw checked every subpath of the exports map.
      expect(Object.keys(report.analysis.entrypoints ?? {}).sort()).toEqual(Object.keys(manifest.exports).sort());
    } else {
      expect(report.analysis.types).toBe(false);
    }
  });
});

describe('the API reference (npm run docs:api)', () => {
  it('is generated by TypeDoc from the TSDoc of every public entry point, without a warning', {
    timeout: 180_000,
  }, async () => {
    const out = join(work, 'api');
    const ran = await runCommand(
      process.execPath,
      [join(ROOT, 'node_modules/typedoc/bin/typedoc'), '--out', out],
      ROOT,
    );
    // typedoc.json treats warnings (an export without TSDoc, a broken link…) as errors.
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout + ran.stderr).not.toMatch(/warning|error/i);
    expect(readdirSync(join(out, 'modules')).sort()).toEqual([
      'nest-mcp-redis.html',
      'nest-mcp-redis_health.html',
      'nest-mcp.html',
      'nest-mcp_backend.html',
      'nest-mcp_cache-manager.html',
      'nest-mcp_progress.html',
      'nest-mcp_testing.html',
    ]);
  });
});

describe('the packaging checks', () => {
  let broken: string;

  beforeAll(async () => {
    // A package whose exports map names files it does not ship, and an ESM file typed as CommonJS.
    const dir = join(work, 'broken', 'package');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'broken-package',
        version: '1.0.0',
        type: 'module',
        license: 'MIT',
        exports: { '.': { types: './index.d.cts', default: './index.js' }, './missing': './missing.js' },
      }),
    );
    writeFileSync(join(dir, 'index.js'), 'export const value = 1;\n');
    writeFileSync(join(dir, 'index.d.cts'), 'export declare const value: number;\n');
    const packed = await runCommand(
      'npm',
      ['pack', dir, '--pack-destination', join(work, 'broken'), '--json', '--ignore-scripts'],
      work,
      userEnv(),
    );
    expect(packed.code, packed.stderr).toBe(0);
    broken = join(work, 'broken', (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
  }, 60_000);

  it('fail on a broken package: publint names the missing file, attw the mistyped entry', {
    timeout: 120_000,
  }, async () => {
    expect((await publintErrors(broken)).join('\n')).toMatch(/missing\.js/);
    const { code, report } = await attw(broken);
    expect(code).not.toBe(0);
    expect(inProfile(report).length).toBeGreaterThan(0);
  });
});
