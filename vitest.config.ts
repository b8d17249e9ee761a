import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const E2E = ['test/**/*.e2e-spec.ts', 'apps/*/test/**/*.e2e-spec.ts'];

/**
 * What marks an end-to-end file as starting other programs: child processes of its own (the CLI, the demo, a
 * packed release, tsc), the browser, a network namespace, or a support module that forks servers or runs nginx or the
 * Inspector. Redis is not on the list: it is a service every Redis test shares, not a program the test drives.
 */
const STARTS_PROCESSES =
  /node:child_process|playwright-core|\bunshare\b|support\/(cluster|forked-server|inspector-cli|nginx|release-packages|stdio-fixture\.build)\.js/;

/** The end-to-end files that start other programs, found by what they import, wherever they sit under test/. */
function processSpawningFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'fixtures') walk(path);
      } else if (entry.name.endsWith('.e2e-spec.ts') && STARTS_PROCESSES.test(readFileSync(path, 'utf8'))) {
        found.push(path.split('\\').join('/'));
      }
    }
  };
  walk('test');
  for (const app of readdirSync('apps', { withFileTypes: true })) {
    if (app.isDirectory()) walk(join('apps', app.name, 'test'));
  }
  return found.sort();
}
const PROCESS_SPAWNING = processSpawningFiles();

// SWC (not Vite's Oxc) transforms the sources so that `emitDecoratorMetadata` matches tsc: Nest's DI and the
// DTO → JSON Schema conversion both read `design:*` metadata.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { tsconfigPaths: true },
  test: {
    setupFiles: ['reflect-metadata'],
    // The playground's bundle is a generated module of nest-mcp's sources (ADR 0022): fresh before any test imports it.
    globalSetup: ['test/support/build-playground.setup.ts'],
    testTimeout: 20_000,
    // `npm run test:coverage`: V8 coverage of the published libraries' sources (CONTRIBUTING.md has the numbers).
    coverage: {
      provider: 'v8',
      include: ['libs/*/src/**/*.ts'],
      exclude: ['**/*.spec.ts', 'libs/mcp/src/playground/playground-assets.generated.ts'],
      reporter: ['text-summary', 'json-summary', 'html'],
      reportsDirectory: 'coverage',
      // The numbers are wanted even when a test fails (a timing-sensitive test can under V8 instrumentation).
      reportOnFailure: true,
    },
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['libs/*/src/**/*.spec.ts', 'apps/*/src/**/*.spec.ts'] } },
      // `npm run test:e2e`: in-process servers on 127.0.0.1 (and the shared Redis), the fast part.
      { extends: true, test: { name: 'e2e', include: E2E, exclude: PROCESS_SPAWNING } },
      // `npm run test:e2e:processes`: the files that start the CLI, forked replicas, nginx, Chromium, packed releases.
      { extends: true, test: { name: 'e2e-processes', include: PROCESS_SPAWNING } },
    ],
  },
});
