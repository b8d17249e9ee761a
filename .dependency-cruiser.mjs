/**
 * The layering of `libs/mcp/src`, checked by `npm run lint:layers` (dependency-cruiser) as part of `npm test`.
 *
 * Each folder is one layer. A layer may import any layer BELOW it and nothing above it, so two folders never import
 * each other. Type-only imports count too. When the check fails, move the contract (interface, type, injection
 * token) down to the lowest layer that needs it, or move the code that needs the higher layer up to where that
 * layer is known; do not hide the import behind a re-export or a callback.
 *
 *  layer (top → bottom)  holds                                            why it sits there
 *  ────────────────────  ───────────────────────────────────────────────  ──────────────────────────────────────────
 *  index.ts, backend/    the public API: `nest-mcp` (what an application  re-export every layer, the module included;
 *                        writes) and `nest-mcp/backend` (what code built  siblings: neither re-exports the other
 *                        on it needs: contracts, codecs, wire types)
 *  mcp.module.ts         the Nest module: providers and their order       wires every layer below
 *  testing/              the testing kit (`nest-mcp/testing`)             starts calls like a transport; production
 *                                                                         code never depends on it
 *  cache-manager/        `@nestjs/cache-manager` on MCP calls             an optional entry (`nest-mcp/cache-manager`):
 *                        (`nest-mcp/cache-manager`)                       the only code that imports the cache packages
 *  transport/http,       Streamable HTTP (Express, Fastify), stdio        bytes in, calls to the runner, bytes out;
 *  transport/stdio                                                        siblings: neither imports the other
 *  playground/           the playground's documents: the page bundled     served by the HTTP transport to browsers;
 *                        at build time, its CSP, the MCP Apps sandbox     needs only the options
 *  legacy/               the 2025-11-25 wire without its transport:       a second protocol over the same runner
 *                        its wire profile, sessions, negotiation,         and dispatcher
 *                        server→client requests, the tasks' 2025 face
 *  tasks/, skills/,      the tasks extension: task store and runner       runs task rounds through the call runner and
 *  events/               defaults, worker, starter, tasks/* routes        adds routes to the dispatcher (server/);
 *                                                                         legacy/ serves its 2025-11-25 face
 *                        the skills extension (SEP-2640): skills from     registers skill:// resources (discovery/),
 *                        folders and @McpSkill, skills/* routes,          adds routes to the dispatcher (server/);
 *                        directory reads                                  legacy/ advertises it on 2025-11-25
 *                        the events extension (SEP-3415): @McpEvent,      adds routes to the dispatcher (server/), its
 *                        McpEvents, replay log, events/* routes,          stream through the call runner; 2026 wire
 *                        verified webhooks and their delivery             only (legacy/ never advertises it)
 *  server/               call runner, dispatcher and route table,         admits and routes a call to the feature
 *                        the 2026 wire profile, the extension contract    that answers it; sees all features; the
 *                        (McpExtension), MCP Apps' extension, feature     contracts the layers above implement
 *                        services, tracker, bootstrap checks
 *  subscriptions/        listen streams, publisher, in-memory event bus   a feature the dispatcher routes to
 *  discovery/            explorer and registry of decorated handlers      builds entries from decorators + contexts
 *  context/              what a handler receives, the handler factory     built on mrtr/ and progress/
 *  mrtr/                 multi round-trip requests: ledger, builders,     used by the contexts and the invoker
 *                        sealed requestState, in-memory single-use store
 *  progress/             typed progress emitters and their codec          used by the contexts
 *  apps/                 MCP Apps (io.modelcontextprotocol/ui): the       what a tool's `app` and an `@McpAppView`
 *                        tool and view `_meta.ui`, the client's           mean on the wire; read by discovery, the
 *                        extension, view contents, views from files       lists and the 2025-11-25 handshake
 *  decorators/           @McpTool, @McpPrompt, @McpResource… metadata     read by discovery; needs schema/ types
 *  schema/               DTO, Standard Schema and JSON Schema adapters    needs only the protocol's errors
 *  auth/                 the OAuth resource server: token verifiers       used by the HTTP transport (bearer check,
 *                        (JWT with jose, introspection), scope rules,     metadata document) and the features (scopes,
 *                        challenges, protected-resource metadata          per-caller lists); needs only options
 *  telemetry/            OpenTelemetry spans and metrics of a call        used by the call runner (server/) and the
 *                        (`@opentelemetry/api`, loaded only when          layers that count things; needs only options
 *                        installed), the copied semantic conventions      and protocol types
 *  config/               module options and their resolved defaults       read by every feature, so it may name only
 *                                                                         contracts from protocol/
 *  protocol/             wire and JSON-RPC types, errors, request scope,  the vocabulary every layer shares, and the
 *                        response channel; the contracts options name     contracts the options name, so that config/
 *                        (event bus, change events, delivery authorizer,  needs nothing above it
 *                        request-state store); small shared utilities
 *                        (admission quota, URI template, JSON limits)
 *
 * Specs beside the code (`*.spec.ts`) are not shipped and stand outside the layers: a spec may wire what it tests
 * with real pieces of any layer (even the whole `McpModule`) and the helpers in `test/`. Nothing may import a spec.
 *
 * Cycles: none between folders, whatever the kind of import. Inside one folder a cycle is allowed only when at least
 * one of its imports is `import type` (erased by the compiler, so nothing cycles at run time; e.g. an interface and
 * the class it names); a cycle of runtime imports is refused anywhere, since ESM would then evaluate one of its files
 * before the other had run.
 */

/** Top to bottom. Entries of one row are siblings: they may not import each other. */
const LAYERS = [
  ['index.ts', 'backend/'],
  ['mcp.module.ts'],
  ['testing/', 'cache-manager/'],
  ['transport/http/', 'transport/stdio/'],
  ['playground/'],
  ['legacy/'],
  ['tasks/', 'skills/', 'events/'],
  ['server/'],
  ['subscriptions/'],
  ['discovery/'],
  ['context/'],
  ['mrtr/'],
  ['progress/'],
  ['apps/'],
  ['decorators/'],
  ['schema/'],
  ['auth/'],
  ['telemetry/'],
  ['config/'],
  ['protocol/'],
];

const SRC = '^libs/mcp/src/';
const SPEC = '\\.spec\\.ts$';
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const pathOf = (entry) => `${SRC}${escapeRegExp(entry)}${entry.endsWith('/') ? '' : '$'}`;

/** One rule per layer: it may not import a layer above it, nor a sibling of its own row. */
const layerRules = LAYERS.flatMap((row, index) => {
  const above = LAYERS.slice(0, index).flat();
  return row.flatMap((entry) => {
    const forbidden = [...above, ...row.filter((sibling) => sibling !== entry)];
    // The top layer may import everything (an empty `to.path` would match every import).
    if (forbidden.length === 0) return [];
    return {
      name: `layer:${entry.replace(/\/$/, '')}`,
      comment:
        `${entry} may import only the layers below it (${
          LAYERS.slice(index + 1)
            .flat()
            .join(', ') || 'none'
        }). ` +
        'Move the contract it needs down instead of importing upwards (see the table in .dependency-cruiser.mjs).',
      severity: 'error',
      from: { path: pathOf(entry), pathNot: SPEC },
      to: { path: forbidden.map(pathOf) },
    };
  });
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    {
      name: 'no-cycle-between-folders',
      comment:
        'These files import each other in a cycle that passes through more than one folder, so one of its imports ' +
        'points upwards: move the contract both need down to the lower folder.',
      severity: 'error',
      from: { path: `${SRC}((?:transport/)?[^/]+)/` },
      to: { circular: true, via: { pathNot: `${SRC}$1/` } },
    },
    {
      name: 'no-runtime-cycle',
      comment:
        'These files import each other in a cycle of runtime imports: which one ESM evaluates first depends on who ' +
        'is imported first. Split out what both need, or make one side `import type` if it only needs types.',
      severity: 'error',
      from: { path: SRC },
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'transport-never-imports-discovery',
      comment:
        'A transport (and the testing kit, which starts calls like one) learns what it needs of a method from its route ' +
        "(server/): how its answer travels, the headers that mirror its params. What discovery builds is the server's " +
        'business; a type both need belongs in protocol/.',
      severity: 'error',
      from: { path: [`${SRC}transport/`, `${SRC}testing/`], pathNot: SPEC },
      to: { path: `${SRC}discovery/` },
    },
    {
      name: 'cache-packages-in-their-entry',
      comment:
        '@nestjs/cache-manager and cache-manager are optional peer dependencies: only the nest-mcp/cache-manager entry ' +
        '(libs/mcp/src/cache-manager/) may import them, so an application without them can load nest-mcp.',
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}cache-manager/` },
      to: { path: '(^|/)node_modules/(@nestjs/cache-manager|cache-manager)/' },
    },
    {
      name: 'progress-entry-stays-small',
      comment:
        'progress/ is the nest-mcp/progress entry, which a wrapped command imports to write ProgressEvent lines: it may ' +
        'import only progress/ itself, two pure helpers of protocol/ and Node built-ins — never Nest, Ajv or the ' +
        'server (test/server/progress-entry.e2e-spec.ts lists what an import of the entry loads).',
      severity: 'error',
      from: { path: `${SRC}progress/`, pathNot: SPEC },
      to: {
        dependencyTypesNot: ['core'],
        pathNot: [
          `${SRC}progress/`,
          `${SRC}protocol/traceparent\\.parser\\.ts$`,
          `${SRC}protocol/json-object\\.util\\.ts$`,
        ],
      },
    },
    {
      name: 'no-unknown-folder',
      comment: 'A new folder under libs/mcp/src needs its place in LAYERS (.dependency-cruiser.mjs) before it is used.',
      severity: 'error',
      from: { path: SRC, pathNot: LAYERS.flat().map(pathOf) },
      to: {},
    },
    {
      name: 'no-other-lib',
      comment: 'The server library stands alone: it may not import another package of this repo (libs/cli, …).',
      severity: 'error',
      from: { path: SRC },
      to: { path: '^libs/', pathNot: SRC },
    },
    {
      name: 'redis-uses-public-api',
      comment:
        'nest-mcp-redis is a separate package: it may use nest-mcp only through its public entries (`nest-mcp`, ' +
        '`nest-mcp/backend`), as its users do. Export what it needs from libs/mcp/src/backend/index.ts (with TSDoc) ' +
        'instead of reaching inside.',
      severity: 'error',
      from: { path: '^libs/mcp-redis/src/' },
      to: { path: SRC, pathNot: [`${SRC}index\\.ts$`, `${SRC}backend/index\\.ts$`] },
    },
    {
      name: 'no-test-helpers-in-redis',
      comment: 'Only specs (*.spec.ts) of nest-mcp-redis may import the helpers in test/.',
      severity: 'error',
      from: { path: '^libs/mcp-redis/src/', pathNot: SPEC },
      to: { path: '^test/' },
    },
    {
      name: 'no-unresolvable',
      comment: 'This relative import points at a file that does not exist, so the rules above could not check it.',
      severity: 'error',
      from: { path: SRC },
      // Relative imports only: a package's type-only path (e.g. `class-transformer/types/….js`) has no .js file.
      to: { couldNotResolve: true, path: '^\\.' },
    },
    {
      name: 'no-test-helpers-in-library',
      comment: 'Only specs (*.spec.ts) may import the helpers in test/; the published code may not.',
      severity: 'error',
      from: { path: SRC, pathNot: SPEC },
      to: { path: '^test/' },
    },
    {
      name: 'no-spec-imports',
      comment: 'A spec is not part of the library: move what both need into a file of its own.',
      severity: 'error',
      from: { path: SRC },
      to: { path: SPEC },
    },
  ],
  options: {
    // libs/mcp/src and libs/mcp-redis/src are checked; what they import from packages and from test/ is a leaf.
    doNotFollow: { path: ['node_modules', '^test/'] },
    // Type-only imports are dependencies too: `import type` from a higher layer is still an upward import.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
