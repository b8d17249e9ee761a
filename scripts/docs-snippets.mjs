#!/usr/bin/env node
/**
 * Keeps the TypeScript of README.md and docs/ identical to real code that `npm run typecheck` compiles, so the guides
 * cannot rot, and (with --check) compiles that code as a user's project would: under TypeScript 6's defaults and under
 * the tsconfig `nest new` writes (scripts/docs-snippets-compile.mjs), so a snippet copied into a new project compiles.
 *
 *   node scripts/docs-snippets.mjs --check   list every problem as `file:line: why` and exit 1 if there is one
 *   node scripts/docs-snippets.mjs --write   rewrite each fence from its region (`npm run docs:snippets`)
 *
 * Every ```ts / ```typescript fence in README.md and docs/**\/*.md (docs/adr aside) has, on the line right above it,
 *
 *   <!-- snippet: path/from/the/repo/root.ts#name -->
 *
 * and holds exactly the lines between `// #region docs:name` and `// #endregion docs:name` of that file, dedented,
 * without leading or trailing blank lines. The name occurs once in the file, and the file lies under an `include` of
 * tsconfig.json. Regions may nest (a bare `// #endregion` closes the innermost one); region markers are left out
 * of the snippet. `<!-- snippet: illustrative -->` exempts pseudo-code that cannot compile: such fences are listed on
 * every run, keep them rare. Fences of other languages (bash, json, nginx…) are not checked.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileUnderUserConfigurations } from './docs-snippets-compile.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = /^\s*<!--\s*snippet:\s*(\S+)\s*-->\s*$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const TS_LANGUAGES = ['ts', 'typescript'];
const REGION_START = /^\s*\/\/ #region docs:([\w.-]+)\s*$/;
const REGION_END = /^\s*\/\/ #endregion(?:\s+docs:([\w.-]+))?\s*$/;
/** Where `npm run typecheck` looks for sources: a snippet taken from anywhere else would not be compiled. */
const TYPE_CHECKED = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).include;

/** The Markdown files under `dir` (docs/adr aside), in a stable order. */
function markdownFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return path === join(ROOT, 'docs/adr') ? [] : markdownFiles(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
}

/** A closed region: blank lines trimmed at both ends, then dedented; `numbers[k]` is the source line of `lines[k]`. */
function finish({ name, line, lines, numbers }) {
  let [first, last] = [0, lines.length];
  while (first < last && !lines[first].trim()) first++;
  while (last > first && !lines[last - 1].trim()) last--;
  const kept = lines.slice(first, last);
  const cut = Math.min(...kept.filter((text) => text.trim()).map((text) => text.match(/^ */)[0].length));
  return { name, line, lines: kept.map((text) => text.slice(cut).trimEnd()), numbers: numbers.slice(first, last) };
}

const regionCache = new Map();
/** Every `docs:` region of a source file, by name (a list, so that a duplicated name can be reported). */
function regionsOf(file) {
  if (regionCache.has(file)) return regionCache.get(file);
  const regions = new Map();
  const add = (region) => regions.set(region.name, [...(regions.get(region.name) ?? []), region]);
  const open = [];
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const [start, end] = [text.match(REGION_START), text.match(REGION_END)];
      if (start) open.push({ name: start[1], line: index + 1, lines: [], numbers: [] });
      else if (end) {
        const at = end[1] ? open.findLastIndex((region) => region.name === end[1]) : open.length - 1;
        if (at >= 0) add(finish(open.splice(at, 1)[0]));
      } else for (const region of open) region.lines.push(text), region.numbers.push(index + 1);
    });
  for (const region of open) add({ ...region, unclosed: true });
  regionCache.set(file, regions);
  return regions;
}

/** The region a marker names, or `{ error }` saying why it cannot be used. */
function resolve(target) {
  const [file, name, rest] = target.split('#');
  if (!name || rest !== undefined) return { error: `"${target}" is not <path>#<name>` };
  if (!file.endsWith('.ts') || !TYPE_CHECKED.some((dir) => file.startsWith(`${dir}/`))) {
    return { error: `${file} is not a .ts file that tsc checks (tsconfig.json include: ${TYPE_CHECKED.join(', ')})` };
  }
  if (!existsSync(join(ROOT, file))) return { error: `${file} does not exist` };
  const found = regionsOf(file).get(name) ?? [];
  if (found.length !== 1) return { error: `${file} has ${found.length} "// #region docs:${name}" (needs exactly one)` };
  if (found[0].unclosed) return { error: `${file}:${found[0].line}: region "${name}" is never closed` };
  return found[0];
}

/** Checks one Markdown file, or with `write` rewrites its fences; returns its problems and fence counts. */
function processDoc(path, write) {
  const doc = relative(ROOT, path);
  const lines = readFileSync(path, 'utf8').split('\n');
  const result = { problems: [], fences: 0, illustrative: [], quotes: [] };
  const problem = (line, why) => result.problems.push(`${doc}:${line}: ${why}`);
  for (let i = 0; i < lines.length; i++) {
    const isMarker = MARKER.test(lines[i]);
    const fence = lines[i].match(FENCE);
    if (isMarker && !TS_LANGUAGES.includes(lines[i + 1]?.match(FENCE)?.[3].toLowerCase()))
      problem(i + 1, 'snippet marker not right above a ```ts fence');
    if (!fence) continue;
    const [, indent, ticks, language] = fence;
    const start = i;
    let end = start + 1; // the closing fence: the same character, at least as many, nothing else
    while (end < lines.length && !new RegExp(`^\\s*${ticks[0]}{${ticks.length},}\\s*$`).test(lines[end])) end++;
    i = end;
    if (!TS_LANGUAGES.includes(language.toLowerCase())) continue;
    result.fences++;
    const target = lines[start - 1]?.match(MARKER)?.[1];
    const region = target && target !== 'illustrative' ? resolve(target) : undefined;
    if (!target)
      problem(start + 1, `\`\`\`${language} fence without <!-- snippet: <path>#<name> --> on the line above`);
    else if (!region) result.illustrative.push(`${doc}:${start + 1}`);
    else if (region.error) problem(start, region.error);
    if (!region || region.error) continue;
    result.quotes.push({ doc, file: target.split('#')[0], numbers: region.numbers, firstLine: start + 2 });
    const actual = lines.slice(start + 1, end).map((text) => text.slice(indent.length).trimEnd());
    const k = [...actual, null].findIndex((text, index) => text !== (region.lines[index] ?? null));
    if (k === -1) continue;
    if (write) {
      lines.splice(start + 1, end - start - 1, ...region.lines.map((text) => (text ? indent + text : text)));
      i = start + region.lines.length + 1;
    } else {
      const at = `${target.split('#')[0]}:${region.numbers[k] ?? (region.numbers.at(-1) ?? region.line) + 1}`;
      problem(
        start + 2 + k,
        `differs from ${at}: doc ${JSON.stringify(actual[k] ?? '(fence ends)')}, code ${JSON.stringify(region.lines[k] ?? '(region ends)')}`,
      );
    }
  }
  if (write && lines.join('\n') !== readFileSync(path, 'utf8')) {
    writeFileSync(path, lines.join('\n'));
    console.log(`updated ${doc}`);
  }
  return result;
}

/**
 * Each quoted region compiled as a user's project compiles it; an error is reported at the doc line that shows the
 * failing source line (once per doc that quotes it).
 */
function compileProblems(quotes) {
  const files = [...new Set(quotes.map((quote) => quote.file))].sort();
  const lines = new Map(
    files.map((file) => [file, new Set(quotes.filter((q) => q.file === file).flatMap((q) => q.numbers))]),
  );
  return compileUnderUserConfigurations(ROOT, files, (file) => lines.get(file)).flatMap(
    ({ config, file, line, message }) => {
      if (!file) return [`${config}: ${message}`];
      return quotes
        .filter((quote) => quote.file === file && quote.numbers.includes(line))
        .map(
          (quote) =>
            `${quote.doc}:${quote.firstLine + quote.numbers.indexOf(line)}: does not compile under ${config} (${file}:${line}): ${message}`,
        );
    },
  );
}

const mode = process.argv[2];
if (mode !== '--check' && mode !== '--write') {
  console.error('usage: node scripts/docs-snippets.mjs --check | --write');
  process.exit(2);
}
const documents = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
const results = documents.map((path) => processDoc(path, mode === '--write'));
const [problems, illustrative] = [results.flatMap((r) => r.problems), results.flatMap((r) => r.illustrative)];
if (mode === '--check') problems.push(...compileProblems(results.flatMap((r) => r.quotes)));
for (const fence of illustrative) console.log(`${fence}: illustrative, not compiled`);
for (const line of problems) console.error(line);
const fences = results.reduce((sum, r) => sum + r.fences, 0);
console.log(
  `docs snippets: ${fences} TypeScript fences, ${illustrative.length} illustrative, ${problems.length} problem(s)`,
);
process.exit(problems.length ? 1 : 0);
