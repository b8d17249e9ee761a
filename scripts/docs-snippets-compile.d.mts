/** A user-like TypeScript configuration the docs snippets are compiled under (see docs-snippets-compile.mjs). */
export interface UserConfiguration {
  name: string;
  compilerOptions: Record<string, unknown>;
}

/** An error on a quoted line, or (without `file`) an error of the configuration itself. */
export interface SnippetCompileError {
  config: string;
  file: string | undefined;
  line: number;
  message: string;
}

/** "TypeScript 6 defaults" and "nest new (…)", as docs-snippets-compile.mjs builds them for `root`. */
export function userConfigurations(root: string): UserConfiguration[];

/** Type-checks `files` under each user configuration; the errors on `quotedLines(file)`. */
export function compileUnderUserConfigurations(
  root: string,
  files: string[],
  quotedLines: (file: string) => Set<number>,
): SnippetCompileError[];
