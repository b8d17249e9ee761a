import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileUnderUserConfigurations, userConfigurations } from '../../scripts/docs-snippets-compile.mjs';

/**
 * The second half of `node scripts/docs-snippets.mjs --check` (issue #29, item 2): quoted code compiled as a user's
 * project compiles it, under TypeScript 6's defaults and under the tsconfig `nest new` writes. A throwaway project
 * (this repository's node_modules linked in) holds code that each configuration alone rejects.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Line 3 lacks definite assignment (strict), line 7 re-exports a type without `export type` (isolatedModules). */
const EXAMPLE = [
  "import { IsInt } from 'class-validator';",
  'export class AddDto {',
  '  @IsInt() a: number;',
  '  @IsInt() b!: number;',
  '}',
  'export interface Shape { sides: number }',
  "export { Shape as Figure } from './example.js';",
  'export class Unquoted { field: string; }',
].join('\n');

let project: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'nest-mcp-snippets-'));
  mkdirSync(join(project, 'docs'));
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { paths: {} } }));
  writeFileSync(join(project, 'docs/example.ts'), EXAMPLE);
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('docs snippets compiled under user configurations', () => {
  it('the "nest new" configuration is the template of the pinned @nestjs/cli: ESM, strict, property initialization off', () => {
    const [defaults, nestNew] = userConfigurations(ROOT);
    expect(defaults.name).toBe('TypeScript 6 defaults');
    expect(defaults.compilerOptions).not.toHaveProperty('strict'); // TypeScript 6 turns it on by itself
    expect(nestNew.name).toBe(
      'nest new (node_modules/@nestjs/schematics/dist/lib/application/files/ts-esm/tsconfig.json)',
    );
    expect(nestNew.compilerOptions).toMatchObject({
      strict: true,
      strictPropertyInitialization: false,
      isolatedModules: true,
      module: 'nodenext',
    });
    const cli = JSON.parse(readFileSync(join(ROOT, 'node_modules/@nestjs/cli/package.json'), 'utf8'));
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies['@nestjs/cli']).toBe(
      cli.version,
    );
  });

  it('TypeScript 6 defaults reject a DTO field without `!`; nest new rejects a type re-exported as a value; unquoted lines are not reported', () => {
    const errors = compileUnderUserConfigurations(project, ['docs/example.ts'], () => new Set([1, 2, 3, 4, 5, 6, 7]));
    const found = errors.map(({ config, file, line, message }) => [
      config.split(' (')[0],
      file,
      line,
      message.split(':')[0],
    ]);
    expect(found).toEqual([
      ['TypeScript 6 defaults', 'docs/example.ts', 3, 'TS2564'],
      ['nest new', 'docs/example.ts', 7, 'TS1205'],
    ]);
  });

  it('the same file with `!` and `export type` compiles under both', () => {
    const fixed = EXAMPLE.replace('a: number', 'a!: number').replace('export { Shape', 'export type { Shape');
    writeFileSync(join(project, 'docs/example.ts'), fixed);
    expect(compileUnderUserConfigurations(project, ['docs/example.ts'], () => new Set([1, 2, 3, 4, 5, 6, 7]))).toEqual(
      [],
    );
  });
});
