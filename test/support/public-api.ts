import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** The entry points of the published package (`exports` of libs/mcp/package.json) and their sources. */
export const PUBLIC_ENTRIES: Readonly<Record<string, string>> = {
  'nest-mcp': 'libs/mcp/src/index.ts',
  'nest-mcp/testing': 'libs/mcp/src/testing/index.ts',
  'nest-mcp/cache-manager': 'libs/mcp/src/cache-manager/index.ts',
  'nest-mcp/backend': 'libs/mcp/src/backend/index.ts',
  'nest-mcp/progress': 'libs/mcp/src/progress/index.ts',
};

/** What an exported name is: `class`, `function`, `const`, `enum`, `interface`, `type`… (`+`-joined when several). */
export type ExportKind = string;

/** Every entry point's exported names, sorted, with their kinds. */
export type PublicApi = Record<string, Record<string, ExportKind>>;

/**
 * Lists what `nest-mcp` and `nest-mcp/testing` export, values and types, as the TypeScript compiler sees the
 * sources with the library's own build options (libs/mcp/tsconfig.lib.json). A name exported with `export type`
 * is marked `(type only)`: it has no value at run time even when it names a class or a constant.
 */
export function listPublicApi(): PublicApi {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'libs/mcp/tsconfig.lib.json'),
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('libs/mcp/tsconfig.lib.json could not be read');
  const files = Object.values(PUBLIC_ENTRIES).map((file) => join(ROOT, file));
  const program = ts.createProgram(files, config.options);
  const checker = program.getTypeChecker();
  const api: PublicApi = {};
  for (const [entry, file] of Object.entries(PUBLIC_ENTRIES)) {
    const source = program.getSourceFile(join(ROOT, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file} is not a module`);
    const names: Record<string, ExportKind> = {};
    for (const symbol of [...checker.getExportsOfModule(module)].sort((a, b) => compare(a.name, b.name))) {
      names[symbol.name] = kindOf(checker, symbol);
    }
    api[entry] = names;
  }
  return api;
}

/** The names an entry point has at run time according to `api`: those with a value that is not exported as a type only. */
export function valueNames(names: Readonly<Record<string, ExportKind>>): string[] {
  const valueKinds = ['class', 'function', 'const', 'let', 'var', 'enum', 'namespace'];
  return Object.entries(names)
    .filter(([, kind]) => !kind.endsWith('(type only)') && kind.split(' + ').some((part) => valueKinds.includes(part)))
    .map(([name]) => name);
}

function kindOf(checker: ts.TypeChecker, exported: ts.Symbol): ExportKind {
  const typeOnly = isTypeOnly(checker, exported);
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const kinds: string[] = [];
  const { flags } = symbol;
  if (flags & ts.SymbolFlags.Class) kinds.push('class');
  if (flags & ts.SymbolFlags.Function) kinds.push('function');
  if (flags & ts.SymbolFlags.Enum) kinds.push('enum');
  if (flags & ts.SymbolFlags.Variable) kinds.push(variableKind(symbol));
  if (flags & ts.SymbolFlags.ValueModule) kinds.push('namespace');
  if (flags & ts.SymbolFlags.Interface && !(flags & ts.SymbolFlags.Class)) kinds.push('interface');
  if (flags & ts.SymbolFlags.TypeAlias) kinds.push('type');
  if (kinds.length === 0) throw new Error(`Unknown kind of export "${exported.name}" (symbol flags ${flags})`);
  const kind = kinds.join(' + ');
  const hasValue = flags & ts.SymbolFlags.Value;
  return typeOnly && hasValue ? `${kind} (type only)` : kind;
}

function variableKind(symbol: ts.Symbol): string {
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (!declaration) return 'var';
  const flags = ts.getCombinedNodeFlags(declaration);
  return flags & ts.NodeFlags.Const ? 'const' : flags & ts.NodeFlags.Let ? 'let' : 'var';
}

/** Whether the name reaches the entry point only through `export type` (or an `export type *`) somewhere on its way. */
function isTypeOnly(checker: ts.TypeChecker, exported: ts.Symbol): boolean {
  let symbol = exported;
  const seen = new Set<ts.Symbol>();
  while (symbol.flags & ts.SymbolFlags.Alias && !seen.has(symbol)) {
    seen.add(symbol);
    if (symbol.declarations?.some((declaration) => ts.isTypeOnlyImportOrExportDeclaration(declaration))) return true;
    symbol = checker.getImmediateAliasedSymbol(symbol) ?? symbol;
  }
  return false;
}

/** Code-point order, the same on every machine. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
