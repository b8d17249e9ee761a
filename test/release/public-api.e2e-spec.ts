import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listPublicApi, PUBLIC_ENTRIES, valueNames, type PublicApi } from '../support/public-api.js';

/** The entry points as an application imports them (tsconfig `paths`, the package's `exports` once built). */
const RUNTIME: Record<string, () => Promise<Record<string, unknown>>> = {
  'nest-mcp': () => import('nest-mcp'),
  'nest-mcp/testing': () => import('nest-mcp/testing'),
  'nest-mcp/cache-manager': () => import('nest-mcp/cache-manager'),
  'nest-mcp/backend': () => import('nest-mcp/backend'),
  'nest-mcp/progress': () => import('nest-mcp/progress'),
};

/**
 * The most names `nest-mcp` may export, values and types (issue #25): the entry holds what an application writes,
 * and the rest goes to `nest-mcp/backend` (ADR 0026). Raising it is a decision, like updating the snapshot.
 */
const MAX_APPLICATION_NAMES = 119;

/** Shown when the snapshot differs: a change of the public API is a decision, made by updating the snapshot. */
const UPDATE_HINT =
  'The public API of nest-mcp changed (test/golden/public-api.json). If the change is deliberate, run ' +
  '`npm run api:update`, review the diff of test/golden/public-api.json and commit it with the change; if it is not, ' +
  'undo the change to the exports of the entry files (libs/mcp/src/index.ts, backend/index.ts, testing/index.ts, ' +
  'cache-manager/index.ts)';

/**
 * The names every entry point exports, values and types, with their kinds, are a committed snapshot: adding,
 * removing or changing the kind of an export fails here until the snapshot is updated on purpose.
 */
describe('public API', () => {
  let api: PublicApi;

  it('exports exactly the names and kinds of the snapshot', { timeout: 60_000 }, async () => {
    api = listPublicApi();
    await expect(`${JSON.stringify(api, null, 2)}\n`, UPDATE_HINT).toMatchFileSnapshot('../golden/public-api.json');
  });

  it(`keeps nest-mcp to what an application writes: fewer than ${MAX_APPLICATION_NAMES + 1} names, none also in nest-mcp/backend`, () => {
    api ??= listPublicApi();
    const application = Object.keys(api['nest-mcp']);
    expect(application.length).toBeGreaterThan(0);
    expect(application.length).toBeLessThanOrEqual(MAX_APPLICATION_NAMES);
    // One home per name: what moved to nest-mcp/backend is not also left in nest-mcp.
    expect(application.filter((name) => name in api['nest-mcp/backend'])).toEqual([]);
    // The design's own words stay where an application finds them (ADR 0021).
    for (const name of [
      'MrtrContext',
      'McpProgressSource',
      'DoubleProgressEmitter',
      'LongProgressEmitter',
      'CountingProgressEmitter',
      'PercentageCompleteProgressEmitter',
    ]) {
      expect(application).toContain(name);
    }
  });

  it('covers every entry point of the package (the `exports` of libs/mcp/package.json)', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../libs/mcp/package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(manifest.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => `nest-mcp${subpath.slice(1)}`);
    expect(Object.keys(PUBLIC_ENTRIES)).toEqual(entries);
    expect(Object.keys(RUNTIME)).toEqual(entries);
  });

  it.each(Object.keys(RUNTIME))(
    '%s has at run time exactly the values the compiler lists',
    { timeout: 60_000 },
    async (entry) => {
      api ??= listPublicApi();
      expect(Object.keys(await RUNTIME[entry]()).sort()).toEqual(valueNames(api[entry]).sort());
    },
  );
});
