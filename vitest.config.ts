import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

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
      { extends: true, test: { name: 'e2e', include: ['test/**/*.e2e-spec.ts', 'apps/*/test/**/*.e2e-spec.ts'] } },
    ],
  },
});
