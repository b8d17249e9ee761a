/**
 * Compiles the code the guides quote the way a user's project would, so a snippet that passes only under the
 * repository's own tsconfig (which turns `strictPropertyInitialization` off) is caught. Used by
 * `scripts/docs-snippets.mjs --check`; see docs/adr/0028-snippets-compile-under-user-tsconfigs.md.
 *
 * Two configurations, each a whole `compilerOptions` a user has on day one:
 * - "TypeScript 6 defaults": nothing but what a NestJS project cannot do without (NodeNext, legacy decorators and
 *   their metadata, Node's types); everything else — `strict` and its `strictPropertyInitialization` — is what
 *   TypeScript 6 defaults to.
 * - "nest new": the tsconfig.json `nest new` writes, read from the @nestjs/schematics that the pinned @nestjs/cli
 *   installs (the ESM template, `strict` answered as the CLI defaults it: true).
 * Both add the repository's `paths` (so `nest-mcp` is the library's source) and `noEmit`. Only errors on the lines
 * of a quoted region are reported: the rest of an example file, and the library itself, are the repository's
 * typecheck's business.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The `compilerOptions` of the "TypeScript 6 defaults" project: what NestJS needs, and no more. */
const TYPESCRIPT_DEFAULTS = {
  module: 'nodenext',
  types: ['node'],
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  skipLibCheck: true,
};

/** The tsconfig.json `nest new` generates with the @nestjs/cli this repository pins (ESM, strict, as its defaults). */
function nestNewCompilerOptions(root) {
  const cli = createRequire(join(root, 'package.json')).resolve('@nestjs/cli/package.json');
  const schematics = createRequire(cli).resolve('@nestjs/schematics/package.json');
  const template = join(schematics, '../dist/lib/application/files/ts-esm/tsconfig.json');
  const { compilerOptions } = JSON.parse(readFileSync(template, 'utf8').replaceAll('<%= strict %>', 'true'));
  const { incremental, ...rest } = compilerOptions; // incremental writes a .tsbuildinfo: irrelevant with noEmit
  return { options: rest, source: relative(root, template) };
}

/** The user-like configurations, by the name a problem report gives. */
export function userConfigurations(root) {
  const nestNew = nestNewCompilerOptions(root);
  return [
    { name: 'TypeScript 6 defaults', compilerOptions: TYPESCRIPT_DEFAULTS },
    { name: `nest new (${nestNew.source})`, compilerOptions: nestNew.options },
  ];
}

/**
 * Type-checks `files` (repository-relative) under each user configuration and returns the errors that fall on
 * `quotedLines(file)` (a Set of 1-based line numbers), as `{ config, file, line, message }`.
 */
export function compileUnderUserConfigurations(root, files, quotedLines) {
  const { paths } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).compilerOptions;
  const errors = [];
  let oldProgram;
  for (const { name, compilerOptions } of userConfigurations(root)) {
    const json = { compilerOptions: { ...compilerOptions, paths, noEmit: true }, files };
    const parsed = ts.parseJsonConfigFileContent(json, ts.sys, root, undefined, join(root, 'tsconfig.snippets.json'));
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, oldProgram });
    oldProgram = program;
    const global = [...parsed.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
    for (const diagnostic of global) {
      errors.push({
        config: name,
        file: undefined,
        line: 0,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      });
    }
    for (const file of files) {
      const source = program.getSourceFile(join(root, file));
      const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
      for (const diagnostic of diagnostics) {
        const line = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1;
        if (!quotedLines(file).has(line)) continue;
        const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
        errors.push({ config: name, file, line, message: `TS${diagnostic.code}: ${text}` });
      }
    }
  }
  return errors;
}
