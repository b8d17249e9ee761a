#!/usr/bin/env node
/**
 * Builds the publishable tarballs of every package of the repository into one folder (`npm run pack`):
 *
 *   npm run pack                     → dist/packages/nest-mcp-0.1.0.tgz, nest-mcp-cli-0.1.0.tgz, nest-mcp-redis-0.1.0.tgz
 *   npm run pack -- --out <folder>   the same into another folder, relative to the repository root (emptied of
 *                                    earlier tarballs first; a folder holding anything else is refused)
 *
 * Each package is compiled, type-checked, from the tsconfig it is published from (libs/<dir>/tsconfig.lib.json) into a
 * staging folder outside the repository, next to its manifest (libs/<dir>/package.json, copied as it is), its
 * README (libs/<dir>/README.md) and the repository's LICENSE and CHANGELOG.md, and packed there with `npm pack`.
 * Only compiled JavaScript, its source maps (sources inlined) and declarations (`stripInternal`) go in besides those:
 * a staged file of any other kind (a spec, a fixture, a build-info file…) stops the build. The CLI and nest-mcp-redis
 * are compiled against the staged declarations of nest-mcp, so they can use nothing of it but its public entries
 * (`nest-mcp`, `nest-mcp/backend`).
 *
 * The same inputs give byte-identical tarballs: tsc's output does not depend on where it is written once the source
 * maps name their sources relative to the package, and npm gives every entry the same fixed date.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildPlayground, PLAYGROUND_SOURCE } from './build-playground.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** Where `npm run pack` writes the tarballs when no `--out` is given. */
export const DEFAULT_OUT_DIR = join(ROOT, 'dist/packages');

/**
 * The packages of the repository, in build order: `dependsOn` names packages whose staged declarations the package is
 * compiled against (as the `nest-mcp` import it would find installed).
 */
export const PACKAGES = [
  { name: 'nest-mcp', dir: 'libs/mcp', dependsOn: [] },
  { name: 'nest-mcp-cli', dir: 'libs/cli', dependsOn: ['nest-mcp'] },
  { name: 'nest-mcp-redis', dir: 'libs/mcp-redis', dependsOn: ['nest-mcp'] },
];

/** Files of the repository root that every tarball carries. */
const SHARED_FILES = ['LICENSE', 'CHANGELOG.md'];

/** What a tarball may hold, by path inside the package: everything else is a packaging mistake. */
export const ALLOWED_FILE =
  /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|(?:[\w.-]+\/)*[\w.-]+\.(?:js|js\.map|d\.ts))$/;
/** Names that must never ship even with an allowed extension. */
export const FORBIDDEN_FILE = /(^|\/)(test|tests|fixtures?|__\w+__)\/|\.(spec|test|e2e-spec)\.|\.tsbuildinfo$/;

/**
 * Every file whose content decides the tarballs: the packages' sources, manifests, tsconfigs and READMEs, the shared
 * files, the root tsconfig and lockfile (the compiler and npm versions), and this script. Two builds from inputs with
 * the same content give the same tarballs.
 */
export function packInputs() {
  const files = [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'scripts/pack.mjs',
    'scripts/build-playground.mjs',
    ...SHARED_FILES,
    // The playground's browser sources, bundled into nest-mcp (libs/mcp/src/playground/playground-assets.generated.ts).
    ...listFiles(PLAYGROUND_SOURCE).map((file) => `libs/mcp/playground/${file}`),
    ...PACKAGES.flatMap(({ dir }) => [
      `${dir}/package.json`,
      `${dir}/README.md`,
      ...readdirSync(join(ROOT, dir))
        .filter((name) => /^tsconfig.*\.json$/.test(name))
        .map((name) => `${dir}/${name}`),
      ...listFiles(join(ROOT, dir, 'src')).map((file) => `${dir}/src/${file}`),
    ]),
  ];
  return [...new Set(files)].sort();
}

/** Relative POSIX paths of the files under `dir`, sorted. */
function listFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** The environment of a command run as a user would: without the `npm_*` variables of an enclosing `npm run`. */
function cleanEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(package_|lifecycle_|config_(local_)?prefix$)/i.test(key)),
  );
}

async function run(file, args, options) {
  try {
    return await promisify(execFile)(file, args, { maxBuffer: 16 * 1024 * 1024, env: cleanEnv(), ...options });
  } catch (error) {
    const output = [error.stdout, error.stderr].filter(Boolean).join('\n').trim();
    throw new Error(`${[file, ...args].join(' ')} failed${output ? `:\n${output}` : ` (${error.message})`}`);
  }
}

/**
 * Compiles one package into `out` with the compiler options of its publishing tsconfig, resolving `nest-mcp` (when it
 * depends on it) to the staged declarations. A generated tsconfig beside the staging folders extends the package's own,
 * so its `include`, `exclude` and options stay the single source.
 */
async function compile(pkg, stage, out) {
  const config = join(stage, `tsconfig.${pkg.name}.json`);
  // The entry itself and its subpath entries (`nest-mcp/backend`…), each an `<entry>/index.d.ts` of the staged package.
  const paths = Object.fromEntries(
    pkg.dependsOn.flatMap((name) => [
      [name, [join(stage, name, 'index.d.ts')]],
      [`${name}/*`, [join(stage, name, '*', 'index.d.ts')]],
    ]),
  );
  const compilerOptions = {
    outDir: out,
    sourceMap: true,
    inlineSources: true,
    declarationMap: false,
    incremental: false,
    // Type packages are looked up from the tsconfig's folder, which is the staging folder here.
    typeRoots: [join(ROOT, 'node_modules/@types')],
    ...(pkg.dependsOn.length > 0 ? { paths } : {}),
  };
  writeFileSync(
    config,
    JSON.stringify({ extends: join(ROOT, pkg.dir, 'tsconfig.lib.json'), compilerOptions }, null, 2),
  );
  await run(process.execPath, [TSC, '-p', config], { cwd: ROOT });
}

/**
 * Source maps name their sources as `src/<path>` of the package (the layout of libs/<dir>), relative to the map, with
 * the sources' text inlined: the same wherever the build was staged, and readable by a debugger without the sources.
 */
function relocateSourceMaps(pkg, out) {
  const sourceDir = join(ROOT, pkg.dir, 'src');
  for (const file of listFiles(out).filter((name) => name.endsWith('.js.map'))) {
    const path = join(out, file);
    const map = JSON.parse(readFileSync(path, 'utf8'));
    const mapDir = dirname(path);
    map.sources = map.sources.map((source) => {
      const absolute = resolve(mapDir, map.sourceRoot ?? '', source);
      const inSource = relative(sourceDir, absolute);
      if (inSource.startsWith('..') || isAbsolute(inSource))
        throw new Error(`${pkg.name}: ${file} maps to ${absolute}, outside ${sourceDir}`);
      return posix.relative(posix.dirname(file), posix.join('src', inSource.split(sep).join('/')));
    });
    map.sourceRoot = '';
    if (!Array.isArray(map.sourcesContent) || map.sourcesContent.length !== map.sources.length) {
      throw new Error(`${pkg.name}: ${file} has no inlined sources`);
    }
    writeFileSync(path, JSON.stringify(map));
  }
}

/** Stops the build on any staged file a tarball must not hold. */
function checkStagedFiles(pkg, out) {
  const stray = listFiles(out).filter((file) => !ALLOWED_FILE.test(file) || FORBIDDEN_FILE.test(file));
  if (stray.length > 0)
    throw new Error(`${pkg.name}: files that must not be published were staged:\n  ${stray.join('\n  ')}`);
}

/** The manifests agree: each package depending on another peers on that package's current version line. */
function checkManifests(manifests) {
  for (const pkg of PACKAGES) {
    const manifest = manifests.get(pkg.name);
    if (manifest.name !== pkg.name)
      throw new Error(`${pkg.dir}/package.json is named ${manifest.name}, expected ${pkg.name}`);
    for (const name of pkg.dependsOn) {
      const wanted = `^${manifests.get(name).version}`;
      const range = manifest.peerDependencies?.[name];
      if (range !== wanted)
        throw new Error(`${pkg.dir}/package.json: peerDependencies["${name}"] is ${range}, expected ${wanted}`);
    }
  }
}

/**
 * Empties `outDir` of earlier tarballs, or makes it. A folder that holds anything else is left alone: `--out .` must
 * never delete a working tree.
 */
function clearOutDir(outDir) {
  checkOutDir(outDir);
  if (existsSync(outDir)) for (const name of readdirSync(outDir)) rmSync(join(outDir, name), { force: true });
  mkdirSync(outDir, { recursive: true });
}

/** Refuses an output folder that holds anything but tarballs, before any work is done. */
function checkOutDir(outDir) {
  if (!existsSync(outDir)) return;
  const other = readdirSync(outDir).filter((name) => !name.endsWith('.tgz'));
  if (other.length > 0)
    throw new Error(`refusing to empty ${outDir}: it holds more than tarballs (${other.slice(0, 5).join(', ')})`);
}

/**
 * Builds every tarball into `outDir` (emptied first). Resolves with what was packed, in PACKAGES order: the tarball's
 * path, its npm integrity and the files it holds.
 */
export async function packAll({ outDir = DEFAULT_OUT_DIR, log = () => {} } = {}) {
  const manifests = new Map(
    PACKAGES.map((pkg) => [pkg.name, JSON.parse(readFileSync(join(ROOT, pkg.dir, 'package.json'), 'utf8'))]),
  );
  checkManifests(manifests);
  checkOutDir(outDir);
  // nest-mcp carries the playground's bundle as a module of its sources, so the bundle is built before they compile.
  await buildPlayground();

  const stage = mkdtempSync(join(tmpdir(), 'nest-mcp-pack-'));
  try {
    const stageOne = async (pkg) => {
      const out = join(stage, pkg.name);
      await compile(pkg, stage, out);
      relocateSourceMaps(pkg, out);
      checkStagedFiles(pkg, out);
      writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifests.get(pkg.name), null, 2)}\n`);
      cpSync(join(ROOT, pkg.dir, 'README.md'), join(out, 'README.md'));
      for (const file of SHARED_FILES) cpSync(join(ROOT, file), join(out, file));
      log(`compiled ${pkg.name}`);
      return out;
    };
    // Each package starts as soon as the packages it is compiled against are staged.
    const started = new Map();
    for (const pkg of PACKAGES) {
      started.set(
        pkg.name,
        Promise.all(pkg.dependsOn.map((name) => started.get(name))).then(() => stageOne(pkg)),
      );
    }
    const staged = await Promise.all(started.values());

    clearOutDir(outDir);
    const packed = [];
    for (const [index, pkg] of PACKAGES.entries()) {
      const { stdout } = await run(
        'npm',
        ['pack', staged[index], '--pack-destination', outDir, '--json', '--ignore-scripts'],
        { cwd: stage },
      );
      const [result] = JSON.parse(stdout);
      const files = result.files.map((file) => file.path).sort();
      const stray = files.filter((file) => !ALLOWED_FILE.test(file) || FORBIDDEN_FILE.test(file));
      if (stray.length > 0)
        throw new Error(`${pkg.name}: the tarball holds files that must not be published: ${stray.join(', ')}`);
      packed.push({
        name: pkg.name,
        version: result.version,
        tarball: join(outDir, result.filename),
        integrity: result.integrity,
        files,
      });
      log(`packed ${result.filename} (${result.entryCount} files, ${result.size} bytes)`);
    }
    return packed;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** `--out <folder>` from the command line, or the default. */
function parseArgs(argv) {
  const index = argv.indexOf('--out');
  if (index === -1) return { outDir: DEFAULT_OUT_DIR };
  if (!argv[index + 1]) throw new Error('--out needs a folder');
  return { outDir: resolve(argv[index + 1]) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const packed = await packAll({ ...parseArgs(process.argv.slice(2)), log: (line) => console.error(line) });
    for (const { tarball } of packed) console.log(relative(process.cwd(), tarball) || tarball);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
