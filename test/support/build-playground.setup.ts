import { buildPlayground } from '../../scripts/build-playground.mjs';

/**
 * Vitest's global setup: builds the playground's bundle (scripts/build-playground.mjs) before any test file loads
 * nest-mcp from source, which imports it (ADR 0022). A rebuild of unchanged sources writes nothing.
 */
export async function setup(): Promise<void> {
  await buildPlayground();
}
