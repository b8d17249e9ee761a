/** Types of scripts/build-playground.mjs, for the tests that import it. */

/** The playground's browser sources (libs/mcp/playground). */
export const PLAYGROUND_SOURCE: string;
/** The generated module of nest-mcp that carries the bundle. */
export const PLAYGROUND_ASSETS: string;
/** Builds the bundle; resolves with whether the generated module changed. */
export function buildPlayground(): Promise<boolean>;
